import { describe, expect, it } from 'vitest'
import type { Span } from '../../model/index.ts'
import { extractAgentRuns } from '../index.ts'
import { outputSteps, toolInvocations } from '../testing/output-steps.ts'
import { sid, span } from '../testing/span-builder.ts'
import { toolError, toolResult } from '../testing/tool-invocations.ts'

const oiScope = { name: 'openinference.instrumentation.google_adk' }
const adkScope = { name: 'gcp.vertex.agent' }
const at = (scope: { name: string }, spec: Parameters<typeof span>[0]): Span => ({ ...span(spec), scope })

const event = (text: string) =>
  JSON.stringify({ content: { parts: [{ text }], role: 'model' }, partial: false })

/** A run as the OpenInference ADK instrumentation records it, with one folded model-call span. */
function trace(): Span[] {
  return [
    at(oiScope, {
      id: 'inv',
      name: 'invocation [app]',
      end: 100,
      attributes: {
        'openinference.span.kind': 'CHAIN',
        'input.value': JSON.stringify({
          user_id: 'u',
          session_id: 's-1',
          new_message: { parts: [{ text: 'Where is A17?' }], role: 'user' },
        }),
        'input.mime_type': 'application/json',
        'output.value': event('It shipped.'),
      },
    }),
    at(oiScope, {
      id: 'wf',
      parent: 'inv',
      name: 'invoke_workflow support',
      start: 1,
      end: 99,
      attributes: { 'openinference.span.kind': 'CHAIN', 'gen_ai.operation.name': 'invoke_workflow' },
    }),
    at(oiScope, {
      id: 'run',
      parent: 'wf',
      name: 'agent_run [support]',
      start: 2,
      end: 98,
      attributes: {
        'openinference.span.kind': 'AGENT',
        'agent.name': 'support',
        'session.id': 's-1',
        'output.value': event('It shipped.'),
        'output.mime_type': 'application/json',
      },
    }),
    at(adkScope, {
      id: 'model',
      parent: 'run',
      name: 'invoke_agent support',
      start: 3,
      end: 97,
      attributes: {
        'openinference.span.kind': 'LLM',
        'gen_ai.operation.name': 'generate_content',
        'gen_ai.system_instructions': JSON.stringify([
          { type: 'text', content: 'Be brief.\n\nYou are an agent. Your internal name is "support".' },
        ]),
        // The last call's prompt: history, the input, then the turn's own steps.
        'gen_ai.input.messages': JSON.stringify([
          { role: 'user', parts: [{ type: 'text', content: 'Hi' }] },
          { role: 'assistant', parts: [{ type: 'text', content: 'Hello!' }] },
          { role: 'user', parts: [{ type: 'text', content: 'Where is A17?' }] },
          {
            role: 'assistant',
            parts: [{ type: 'tool_call', id: 'c1', name: 'lookup', arguments: { id: 'A17' } }],
          },
          {
            role: 'user',
            parts: [{ type: 'tool_call_response', id: 'c1', response: { status: 'shipped' } }],
          },
        ]),
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: 'It shipped.' }], finish_reason: 'stop' },
        ]),
      },
    }),
    at(oiScope, {
      id: 't1',
      parent: 'model',
      name: 'execute_tool lookup',
      start: 4,
      end: 5,
      attributes: {
        'openinference.span.kind': 'TOOL',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'lookup',
        'gen_ai.tool.call.id': 'c1',
        'gen_ai.tool.call.arguments': '{"id": "A17"}',
        'gen_ai.tool.call.result': '{"status": "shipped"}',
      },
    }),
    at(oiScope, {
      id: 't2',
      parent: 'model',
      name: 'execute_tool lookup',
      start: 6,
      end: 7,
      error: 'TOOL_ERROR',
      attributes: {
        'openinference.span.kind': 'TOOL',
        'tool.name': 'lookup',
        'tool.id': 'c2',
        'input.value': '{"id": "Z99"}',
        'output.value': '{"id": "c2", "name": "lookup", "response": {"error": "Order Z99 not found"}}',
      },
    }),
  ]
}

describe('Google ADK traced by OpenInference', () => {
  it('makes agent_run the run, not the invocation or workflow chains', () => {
    expect(extractAgentRuns(trace()).map((run) => run.spanId)).toEqual([sid('run')])
  })

  it("takes the input from the invocation's new_message, history and system from the folded prompt", () => {
    const [run] = extractAgentRuns(trace())
    expect(run!.agentName).toBe('support')
    expect(run!.input.systemMessages).toEqual([{ role: 'system', content: 'Be brief.' }])
    expect(run!.input.inputMessages.map((m) => m.content.content)).toEqual(['Where is A17?'])
    expect(run!.input.rememberedMessages.map((m) => m.content.content)).toEqual(['Hi', 'Hello!'])
    expect(run!.output[0]!.content.content).toBe('It shipped.')
  })

  it('reads tool calls from the GenAI keys, else the OpenInference ones, errors from the response', () => {
    const [run] = extractAgentRuns(trace())
    expect(toolInvocations(run!)).toEqual([
      toolResult('c1', 'lookup', { id: 'A17' }, { status: 'shipped' }),
      toolError('c2', 'lookup', { id: 'Z99' }, 'Order Z99 not found'),
    ])
  })

  it('continues the run into the agents a transfer reached (later agent_run siblings)', () => {
    const billing = at(oiScope, {
      id: 'bill',
      parent: 'wf',
      name: 'agent_run [billing]',
      start: 98,
      end: 99,
      attributes: {
        'openinference.span.kind': 'AGENT',
        'agent.name': 'billing',
        'output.value': event('Refunded.'),
      },
    })
    const runs = extractAgentRuns([...trace(), billing])
    expect(runs.map((run) => run.agentName)).toEqual(['support'])
  })
})

const text = (content: string) => ({ type: 'text', content })
const call = (id: string, name: string, args: unknown) => ({ type: 'tool_call', id, name, arguments: args })
const response = (id: string, value: unknown) => ({ type: 'tool_call_response', id, response: value })

/** One turn whose model calls all landed on ADK's `invoke_agent` span: `prompt` is the last call's. */
function foldedTurn(model: Record<string, string>, toolIds: string[]): Span[] {
  const [inv, wf, run] = trace()
  const tools = toolIds.map((id, index) =>
    at(oiScope, {
      id: `tool-${id}`,
      parent: 'model',
      name: 'execute_tool lookup',
      start: 10 + index * 10,
      end: 15 + index * 10,
      attributes: {
        'openinference.span.kind': 'TOOL',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'lookup',
        'gen_ai.tool.call.id': id,
        'gen_ai.tool.call.arguments': JSON.stringify({ id }),
        'gen_ai.tool.call.result': JSON.stringify({ found: id }),
      },
    }),
  )
  const folded = at(adkScope, {
    id: 'model',
    parent: 'run',
    name: 'invoke_agent support',
    start: 3,
    end: 97,
    attributes: { 'openinference.span.kind': 'LLM', ...model },
  })
  return [inv!, wf!, run!, folded, ...tools]
}

/** ADK's GenAI keys of the folded span: the last call's prompt and answer. */
const genAiKeys = (prompt: unknown[], answer = 'It shipped.') => ({
  'gen_ai.operation.name': 'generate_content',
  'gen_ai.input.messages': JSON.stringify(prompt),
  'gen_ai.output.messages': JSON.stringify([
    { role: 'assistant', parts: [text(answer)], finish_reason: 'stop' },
  ]),
})

const wholeTurn = [
  { role: 'user', parts: [text('Hi')] },
  { role: 'assistant', parts: [text('Hello!')] },
  { role: 'user', parts: [text('Where is A17?')] },
  { role: 'assistant', parts: [text('Looking it up.'), call('c1', 'lookup', { id: 'c1' })] },
  { role: 'user', parts: [response('c1', { found: 'c1' })] },
  { role: 'assistant', parts: [call('c2', 'lookup', { id: 'c2' })] },
  { role: 'user', parts: [response('c2', { found: 'c2' })] },
]

describe('Google ADK traced by OpenInference: the model calls folded into invoke_agent', () => {
  it("rebuilds each call of the turn from the last prompt's history, then the last output", () => {
    const [run] = extractAgentRuns(foldedTurn(genAiKeys(wholeTurn), ['c1', 'c2']))
    expect(outputSteps(run!)).toEqual([
      { texts: ['Looking it up.'], toolCallIds: ['c1'] },
      { texts: [], toolCallIds: ['c2'] },
      { texts: ['It shipped.'], toolCallIds: [] },
    ])
    expect(toolInvocations(run!)).toEqual([
      toolResult('c1', 'lookup', { id: 'c1' }, { found: 'c1' }),
      toolResult('c2', 'lookup', { id: 'c2' }, { found: 'c2' }),
    ])
    // The input and history are what they were: the prompt cut after the user's input.
    expect(run!.input.inputMessages.map((m) => m.content.content)).toEqual(['Where is A17?'])
    expect(run!.input.rememberedMessages.map((m) => m.content.content)).toEqual(['Hi', 'Hello!'])
    expect(run!.notes).toBeUndefined()
  })

  it('takes the results from the prompt when the tool spans are lost', () => {
    const spans = foldedTurn(genAiKeys(wholeTurn), [])
    const [run] = extractAgentRuns(spans)
    expect(outputSteps(run!).map((step) => step.toolCallIds)).toEqual([['c1'], ['c2'], []])
    expect(toolInvocations(run!)[1]).toEqual(toolResult('c2', 'lookup', { id: 'c2' }, { found: 'c2' }))
  })

  it('keeps the calls one step, and says why, when the prompt lacks a tool span’s call', () => {
    // History cut short: the prompt no longer holds c2's call.
    const [run] = extractAgentRuns(foldedTurn(genAiKeys(wholeTurn.slice(0, 5)), ['c1', 'c2']))
    expect(outputSteps(run!)).toEqual([{ texts: ['It shipped.'], toolCallIds: ['c1', 'c2'] }])
    expect(run!.notes).toContain(
      `model calls folded into span ${sid('model')} kept as one step: its prompt lacks tool call(s) c2 (history cut short?)`,
    )
  })

  it('keeps the calls one step, and says why, when no prompt is recorded', () => {
    const { 'gen_ai.input.messages': _prompt, ...withoutPrompt } = genAiKeys(wholeTurn)
    const [run] = extractAgentRuns(foldedTurn(withoutPrompt, ['c1', 'c2']))
    expect(outputSteps(run!)).toEqual([{ texts: ['It shipped.'], toolCallIds: ['c1', 'c2'] }])
    expect(run!.notes).toContain(
      `model calls folded into span ${sid('model')} kept as one step: its prompt is not recorded`,
    )
  })

  it("drops an earlier call's tool calls left in OpenInference's flattened output keys", () => {
    // The last call (text only) overwrote message 0's text, not the first call's tool-call keys.
    const keys = {
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.content': 'Where is A17?',
      'llm.input_messages.1.message.role': 'model',
      'llm.input_messages.1.message.tool_calls.0.tool_call.id': 'c1',
      'llm.input_messages.1.message.tool_calls.0.tool_call.function.name': 'lookup',
      'llm.input_messages.1.message.tool_calls.0.tool_call.function.arguments': '{"id": "c1"}',
      'llm.input_messages.2.message.role': 'tool',
      'llm.input_messages.2.message.tool_call_id': 'c1',
      'llm.input_messages.2.message.content': '{"found": "c1"}',
      'llm.output_messages.0.message.role': 'model',
      'llm.output_messages.0.message.content': 'It shipped.',
      'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'c1',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'lookup',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"id": "c1"}',
    }
    const [run] = extractAgentRuns(foldedTurn(keys, ['c1']))
    expect(outputSteps(run!)).toEqual([
      { texts: [], toolCallIds: ['c1'] },
      { texts: ['It shipped.'], toolCallIds: [] },
    ])
    expect(toolInvocations(run!)).toEqual([toolResult('c1', 'lookup', { id: 'c1' }, { found: 'c1' })])
  })
})
