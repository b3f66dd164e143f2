import { describe, expect, it } from 'vitest'
import type { Attributes, Span } from '../../model/index.ts'
import { extractAgentRuns, spanRole } from '../index.ts'
import { toolInvocations } from '../testing/output-steps.ts'
import { sid, span } from '../testing/span-builder.ts'
import { toolError, toolResult } from '../testing/tool-invocations.ts'

const scope = { name: 'openinference.instrumentation.llama_index', version: '4.6.1' }
const li = (spec: Parameters<typeof span>[0] & { kind: string }): Span => {
  const { kind, attributes = {}, ...rest } = spec
  return {
    ...span({
      ...rest,
      attributes: { 'openinference.span.kind': kind, 'session.id': 'conv-1', ...attributes },
    }),
    scope,
  }
}

const REPR_OUTPUT =
  "StopEvent(result=AgentOutput(response=ChatMessage(role=<MessageRole.ASSISTANT: 'assistant'>, additional_kwargs={}, blocks=[TextBlock(block_type='text', text='Shipped.')]), s..."

function chat(id: string, parent: string, start: number, messages: Attributes): Span[] {
  return [
    // The request builder: LLM kind, no call, no messages.
    li({ id: `${id}p`, parent, name: 'OpenAI._prepare_chat_with_tools', kind: 'LLM', start, end: start + 1 }),
    li({
      id,
      parent,
      name: 'OpenAI.achat',
      kind: 'LLM',
      start: start + 2,
      end: start + 3,
      attributes: messages,
    }),
  ]
}

/** A FunctionAgent run: one tool call, then the answer; names only in the step reprs. */
function trace(): Span[] {
  return [
    li({
      id: 'run',
      name: 'FunctionAgent.run',
      kind: 'CHAIN',
      end: 100,
      attributes: {
        'input.value': JSON.stringify({
          init_state: { is_running: false },
          start_event: 'AgentWorkflowStartEvent()',
        }),
        'input.mime_type': 'application/json',
        'output.value': REPR_OUTPUT,
        'output.mime_type': 'text/plain',
      },
    }),
    li({
      id: 'init',
      parent: 'run',
      name: 'BaseWorkflowAgent.init_run',
      kind: 'CHAIN',
      start: 1,
      end: 2,
      attributes: {
        // Cut at 200 characters by the instrumentation: no name here.
        'output.value':
          "AgentInput(input=[ChatMessage(role=<MessageRole.USER: 'user'>, blocks=[TextBlock(text='Where is A17?')])], curren...",
        'output.mime_type': 'text/plain',
      },
    }),
    li({
      id: 'setup',
      parent: 'run',
      name: 'BaseWorkflowAgent.setup_agent',
      kind: 'CHAIN',
      start: 3,
      end: 4,
      attributes: {
        'input.value': JSON.stringify({ ev: "AgentInput(input=[], current_agent_name='order-agent')" }),
        'input.mime_type': 'application/json',
      },
    }),
    li({
      id: 'step1',
      parent: 'run',
      name: 'BaseWorkflowAgent.run_agent_step',
      kind: 'CHAIN',
      start: 5,
      end: 12,
    }),
    ...chat('l1', 'step1', 6, {
      'llm.input_messages.0.message.role': 'system',
      'llm.input_messages.0.message.content': 'Answer order questions.',
      'llm.input_messages.1.message.role': 'user',
      'llm.input_messages.1.message.content': 'Hello',
      'llm.input_messages.2.message.role': 'assistant',
      'llm.input_messages.2.message.content': 'Hi!',
      'llm.input_messages.3.message.role': 'user',
      'llm.input_messages.3.message.content': 'Where is A17?',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_1',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'lookup',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"id": "A17"}',
      'llm.output_messages.0.message.tool_calls.1.tool_call.id': 'call_2',
      'llm.output_messages.0.message.tool_calls.1.tool_call.function.name': 'lookup',
      'llm.output_messages.0.message.tool_calls.1.tool_call.function.arguments': '{"id": "Z99"}',
    }),
    li({ id: 'ct1', parent: 'run', name: 'BaseWorkflowAgent.call_tool', kind: 'CHAIN', start: 13, end: 16 }),
    li({
      id: 't1',
      parent: 'ct1',
      name: 'FunctionTool.acall',
      kind: 'TOOL',
      start: 14,
      end: 15,
      attributes: {
        'tool.name': 'lookup',
        'input.value': '{"kwargs": {"id": "A17"}}',
        'input.mime_type': 'application/json',
        'output.value': JSON.stringify({
          blocks: [{ text: "{'id': 'A17', 'status': 'shipped'}" }],
          tool_name: 'lookup',
          raw_input: { args: [], kwargs: { id: 'A17' } },
          raw_output: { id: 'A17', status: 'shipped' },
          is_error: false,
        }),
        'output.mime_type': 'application/json',
      },
    }),
    li({ id: 'ct2', parent: 'run', name: 'BaseWorkflowAgent.call_tool', kind: 'CHAIN', start: 17, end: 20 }),
    li({
      id: 't2',
      parent: 'ct2',
      name: 'FunctionTool.acall',
      kind: 'TOOL',
      start: 18,
      end: 19,
      error: 'ValueError: Order Z99 not found',
      events: [{ name: 'exception', attributes: { 'exception.message': 'Order Z99 not found' } }],
      attributes: { 'tool.name': 'lookup', 'input.value': '{"kwargs": {"id": "Z99"}}' },
    }),
    li({
      id: 'step2',
      parent: 'run',
      name: 'BaseWorkflowAgent.run_agent_step',
      kind: 'CHAIN',
      start: 21,
      end: 30,
    }),
    ...chat('l2', 'step2', 22, {
      'llm.input_messages.0.message.role': 'system',
      'llm.input_messages.0.message.content': 'Answer order questions.',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': 'Shipped.',
    }),
  ]
}

describe('LlamaIndex agent workflows (OpenInference)', () => {
  it('makes the workflow run CHAIN the run, and the request builder no model call', () => {
    const spans = trace()
    expect(spanRole(spans[0]!)).toBe('agent')
    expect(spanRole(spans.find((s) => s.name === 'OpenAI._prepare_chat_with_tools')!)).toBe('other')
    expect(spanRole(spans.find((s) => s.name === 'BaseWorkflowAgent.run_agent_step')!)).toBe('other')
    expect(extractAgentRuns(spans).map((run) => run.spanId)).toEqual([sid('run')])
  })

  it('takes input, history and instructions from the first model call, the name from a step repr', () => {
    const [run] = extractAgentRuns(trace())
    expect(run!.agentName).toBe('order-agent')
    expect(run!.conversationId).toBe('conv-1')
    expect(run!.input.systemMessages).toEqual([{ role: 'system', content: 'Answer order questions.' }])
    expect(run!.input.inputMessages.map((m) => m.content.content)).toEqual(['Where is A17?'])
    expect(run!.input.rememberedMessages.map((m) => m.content.content)).toEqual(['Hello', 'Hi!'])
  })

  it('never takes the StopEvent repr as the final text: the last model call answers', () => {
    const [run] = extractAgentRuns(trace())
    expect(run!.output[0]!.content.content).toBe('Shipped.')
  })

  it('reads tool arguments out of the kwargs envelope, results out of ToolOutput, errors from the exception', () => {
    const [run] = extractAgentRuns(trace())
    expect(toolInvocations(run!)).toEqual([
      toolResult('call_1', 'lookup', { id: 'A17' }, { id: 'A17', status: 'shipped' }),
      toolError('call_2', 'lookup', { id: 'Z99' }, 'Order Z99 not found'),
    ])
  })

  it('makes a workflow run inside a tool a nested run of its own', () => {
    const renamed = (id: string) => `n${id.replace(/^0+/, '')}`.padStart(16, '0')
    const inner = trace().map((s) => ({
      ...s,
      spanId: renamed(s.spanId),
      parentSpanId: s.parentSpanId ? renamed(s.parentSpanId) : sid('t1'),
    }))
    const runs = extractAgentRuns([...trace(), ...inner])
    expect(runs).toHaveLength(2)
    const nested = runs.find((run) => run.spanId !== sid('run'))
    expect(nested!.parentRunSpanId).toBe(sid('run'))
    expect(toolInvocations(nested!)).toHaveLength(2)
  })
})
