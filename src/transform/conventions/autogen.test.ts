import { describe, expect, it } from 'vitest'
import type { Span } from '../../model/index.ts'
import { extractAgentRuns, spanRole } from '../index.ts'
import { outputSteps, toolInvocations } from '../testing/output-steps.ts'
import { sid, span } from '../testing/span-builder.ts'
import { toolError, toolResult } from '../testing/tool-invocations.ts'

const oiScope = { name: 'openinference.instrumentation.autogen_agentchat' }
const oi = (spec: Parameters<typeof span>[0] & { kind: string }): Span => {
  const { kind, attributes = {}, ...rest } = spec
  return {
    ...span({ ...rest, attributes: { 'openinference.span.kind': kind, ...attributes } }),
    scope: oiScope,
  }
}

/** OpenInference's AutoGen spans alone: results only as `function.N` entries, text beside calls as `thought`. */
function trace(): Span[] {
  return [
    oi({
      id: 'agent',
      name: 'support_agent.on_messages_stream',
      kind: 'AGENT',
      end: 100,
      attributes: { 'graph.node.id': 'support_agent' },
    }),
    oi({
      id: 'l1',
      parent: 'agent',
      kind: 'LLM',
      start: 1,
      end: 2,
      attributes: {
        'llm.input_messages.0.message.role': 'developer',
        'llm.input_messages.0.message.content': 'Be brief.',
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.content': 'Refund A17 and Z99.',
        'output.value': JSON.stringify({
          finish_reason: 'function_calls',
          content: [],
          thought: 'Refunding both.',
        }),
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'c1',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'refund',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"id": "A17"}',
        'llm.output_messages.0.message.tool_calls.1.tool_call.id': 'c2',
        'llm.output_messages.0.message.tool_calls.1.tool_call.function.name': 'refund',
        'llm.output_messages.0.message.tool_calls.1.tool_call.function.arguments': '{"id": "Z99"}',
      },
    }),
    oi({
      id: 'l2',
      parent: 'agent',
      kind: 'LLM',
      start: 5,
      end: 6,
      attributes: {
        'llm.input_messages.3.message.role': 'function',
        'llm.input_messages.3.function.0': JSON.stringify({
          name: 'refund',
          content: "{'id': 'A17', 'ok': True}",
          call_id: 'c1',
          is_error: false,
        }),
        'llm.input_messages.3.function.1': JSON.stringify({
          name: 'refund',
          content: 'No order Z99',
          call_id: 'c2',
          is_error: true,
        }),
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': 'Refunded A17 only.',
      },
    }),
  ]
}

describe('AutoGen AgentChat traced by OpenInference', () => {
  it('names the agent from graph.node.id', () => {
    const [run] = extractAgentRuns(trace())
    expect(run!.agentName).toBe('support_agent')
  })

  it('reads tool results and errors out of the function messages of the next prompt', () => {
    const [run] = extractAgentRuns(trace())
    expect(toolInvocations(run!)).toEqual([
      toolResult('c1', 'refund', { id: 'A17' }, { id: 'A17', ok: true }),
      toolError('c2', 'refund', { id: 'Z99' }, 'No order Z99'),
    ])
  })

  it("keeps the text written beside tool calls (the response's thought) in its step", () => {
    const [run] = extractAgentRuns(trace())
    expect(outputSteps(run!)).toEqual([
      { texts: ['Refunding both.'], toolCallIds: ['c1', 'c2'] },
      { texts: ['Refunded A17 only.'], toolCallIds: [] },
    ])
  })

  it('reads a TOOL span result written as a Python literal', () => {
    const tool = oi({
      id: 't1',
      parent: 'agent',
      name: 'support_agent.refund',
      kind: 'TOOL',
      start: 3,
      end: 4,
      attributes: {
        'tool.name': 'refund',
        'input.value': '{"id": "A17"}',
        'output.value': "{'id': 'A17', 'ok': True}",
        'output.mime_type': 'text/plain',
      },
    })
    const [run] = extractAgentRuns([...trace(), tool])
    expect(toolInvocations(run!)[0]).toEqual(
      toolResult('c1', 'refund', { id: 'A17' }, { id: 'A17', ok: true }),
    )
  })
})

describe('AutoGen AgentChat traced by OpenInference: failures its statuses drop', () => {
  /** TOOL spans as the instrumentation ends them: OK, the result (or the error's text) as output. */
  const toolSpans = ['c1', 'c2'].map((id, index) =>
    oi({
      id: `t-${id}`,
      parent: 'agent',
      name: 'support_agent.refund',
      kind: 'TOOL',
      start: 3 + index,
      end: 4 + index,
      attributes: {
        'tool.name': 'refund',
        'input.value': JSON.stringify({ id: index === 0 ? 'A17' : 'Z99' }),
        'output.value': index === 0 ? "{'id': 'A17', 'ok': True}" : 'No order Z99',
        'output.mime_type': 'text/plain',
      },
    }),
  )

  it("fails a call whose OK TOOL span's result the next prompt marks is_error", () => {
    const [run] = extractAgentRuns([...trace(), ...toolSpans])
    expect(toolInvocations(run!)).toEqual([
      toolResult('c1', 'refund', { id: 'A17' }, { id: 'A17', ok: true }),
      toolError('c2', 'refund', { id: 'Z99' }, 'No order Z99'),
    ])
  })

  it('keeps the TOOL span result when no later prompt reports the call', () => {
    const spans = trace().filter((span) => span.spanId !== sid('l2'))
    const [run] = extractAgentRuns([...spans, ...toolSpans])
    expect(toolInvocations(run!)[1]).toEqual(toolResult('c2', 'refund', { id: 'Z99' }, 'No order Z99'))
  })

  const withAgentEvent = (type: string, message: string) =>
    trace().map((span) =>
      span.spanId === sid('agent')
        ? {
            ...span,
            events: [
              {
                name: 'exception',
                timeUnixNano: span.endTimeUnixNano,
                attributes: { 'exception.type': type, 'exception.message': message },
              },
            ],
          }
        : span,
    )

  it('fails a run whose OK AGENT span recorded the exception that ended it', () => {
    const [run] = extractAgentRuns(withAgentEvent('openai.InternalServerError', 'Upstream model overloaded'))
    expect(run!.status).toBe('error')
    expect(run!.notes).toContain('agent run failed: Upstream model overloaded')
  })

  it('takes the cancellation that ends a finished stream for no failure', () => {
    const [run] = extractAgentRuns(withAgentEvent('asyncio.exceptions.CancelledError', ''))
    expect(run!.status).toBe('ok')
  })
})

describe("AutoGen's own spans", () => {
  it("give a failed tool's own message, not the exception type in the status", () => {
    const spans: Span[] = [
      {
        ...span({
          id: 'inv',
          name: 'invoke_agent a',
          end: 50,
          attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'a' },
        }),
        scope: { name: 'autogen-core' },
      },
      {
        ...span({
          id: 'tool',
          parent: 'inv',
          name: 'execute_tool lookup',
          start: 1,
          end: 2,
          error: 'ValueError: Order Z99 not found',
          events: [
            {
              name: 'exception',
              attributes: { 'exception.type': 'ValueError', 'exception.message': 'Order Z99 not found' },
            },
          ],
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'lookup',
            'gen_ai.tool.call.id': 'c1',
          },
        }),
        scope: { name: 'autogen-core' },
      },
    ]
    expect(spanRole(spans[1]!)).toBe('tool')
    const [run] = extractAgentRuns(spans)
    expect(toolInvocations(run!)).toEqual([toolError('c1', 'lookup', {}, 'Order Z99 not found')])
  })
})
