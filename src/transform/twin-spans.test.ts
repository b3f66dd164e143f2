import { describe, expect, it } from 'vitest'
import type { Attributes, Span } from '../model/index.ts'
import { extractAgentRuns } from './index.ts'
import { outputSteps, toolInvocations } from './testing/output-steps.ts'
import { sid, span } from './testing/span-builder.ts'
import { toolError, toolResult } from './testing/tool-invocations.ts'
import { twinToolSpans } from './twin-spans.ts'

/** A framework's own GenAI spans and OpenInference's, both on: two scopes in one trace. */
const native = (spec: Parameters<typeof span>[0]): Span => ({
  ...span(spec),
  scope: { name: 'framework-native' },
})
const oi = (spec: Parameters<typeof span>[0] & { kind: string }): Span => {
  const { kind, attributes = {}, ...rest } = spec
  return {
    ...span({ ...rest, attributes: { 'openinference.span.kind': kind, ...attributes } }),
    scope: { name: 'openinference.instrumentation.framework' },
  }
}

const calls = (list: [string, string, string][]): Attributes => {
  const out: Attributes = { 'llm.output_messages.0.message.role': 'assistant' }
  list.forEach(([id, name, args], index) => {
    const prefix = `llm.output_messages.0.message.tool_calls.${index}.tool_call`
    out[`${prefix}.id`] = id
    out[`${prefix}.function.name`] = name
    out[`${prefix}.function.arguments`] = args
  })
  return out
}

/**
 * One invocation recorded by both: the native `invoke_agent` holds OpenInference's AGENT span;
 * each tool execution is OpenInference's TOOL span (arguments and result, no call id, never an
 * error) holding the native `execute_tool` (call id and error, no arguments).
 */
function doubleTrace({
  nativeError,
  oiError,
  toolFails,
}: {
  nativeError?: string
  oiError?: string
  toolFails?: boolean
}): Span[] {
  return [
    native({
      id: 'inv',
      name: 'invoke_agent support',
      end: 100,
      ...(nativeError ? { error: nativeError } : {}),
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support' },
    }),
    oi({
      id: 'agent',
      parent: 'inv',
      name: 'support.on_messages_stream',
      kind: 'AGENT',
      start: 1,
      end: 99,
      ...(oiError ? { error: oiError } : {}),
      attributes: { 'session.id': 'conv-1' },
    }),
    oi({
      id: 'l1',
      parent: 'agent',
      kind: 'LLM',
      start: 2,
      end: 3,
      attributes: {
        'llm.input_messages.0.message.role': 'system',
        'llm.input_messages.0.message.content': 'Be brief.',
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.content': 'Where is A17?',
        ...calls([['call_1', 'lookup', '{"id": "A17"}']]),
      },
    }),
    oi({
      id: 't1',
      parent: 'agent',
      name: 'support.lookup',
      kind: 'TOOL',
      start: 4,
      end: 7,
      attributes: {
        'tool.name': 'lookup',
        'input.value': '{"id": "A17"}',
        'output.value': toolFails ? 'Order A17 not found' : '{"status": "shipped"}',
      },
    }),
    native({
      id: 'e1',
      parent: 't1',
      name: 'execute_tool lookup',
      start: 5,
      end: 6,
      ...(toolFails ? { error: 'Order A17 not found' } : {}),
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'lookup',
        'gen_ai.tool.call.id': 'call_1',
      },
    }),
    oi({
      id: 'l2',
      parent: 'agent',
      kind: 'LLM',
      start: 8,
      end: 9,
      attributes: {
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': 'Done.',
      },
    }),
  ]
}

describe('two instrumentations of one framework in one trace', () => {
  it('give one run with each tool call once, the error of either copy kept', () => {
    const runs = extractAgentRuns(doubleTrace({ toolFails: true }))
    expect(runs.map((run) => run.spanId)).toEqual([sid('agent')])
    expect(toolInvocations(runs[0]!)).toEqual([
      toolError('call_1', 'lookup', { id: 'A17' }, 'Order A17 not found'),
    ])
    expect(runs[0]!.notes ?? []).not.toContain(
      'tool call id call_1 is shared by several tool spans; each is kept as a call',
    )
  })

  it('give a call that succeeded once, with the richer copy of its arguments and result', () => {
    const [run] = extractAgentRuns(doubleTrace({}))
    expect(toolInvocations(run!)).toEqual([
      toolResult('call_1', 'lookup', { id: 'A17' }, { status: 'shipped' }),
    ])
    expect(run!.status).toBe('ok')
  })

  it('name the run from the copy that records the name', () => {
    const [run] = extractAgentRuns(doubleTrace({}))
    expect(run!.agentName).toBe('support')
    expect(run!.conversationId).toBe('conv-1')
  })

  it.each([
    ['the framework', { nativeError: 'Error code: 500' }],
    ['OpenInference', { oiError: 'Error code: 500' }],
  ])('make the run an error when its agent span failed in %s only', (_who, errors) => {
    const [run] = extractAgentRuns(doubleTrace(errors))
    expect(run!.status).toBe('error')
  })
})

describe('twinToolSpans', () => {
  const key = (span: Span) => ({
    toolCallId: span.attributes['gen_ai.tool.call.id'] as string | undefined,
    toolName: (span.attributes['tool.name'] ?? span.attributes['gen_ai.tool.name']) as string,
  })

  it('pairs copies without a shared id by tool name and overlapping times, each once and in order', () => {
    const first = oi({ id: 'a', kind: 'TOOL', start: 0, end: 10, attributes: { 'tool.name': 'lookup' } })
    const firstCopy = native({
      id: 'b',
      parent: 'a',
      start: 1,
      end: 9,
      attributes: { 'gen_ai.tool.name': 'lookup' },
    })
    const second = oi({ id: 'c', kind: 'TOOL', start: 20, end: 30, attributes: { 'tool.name': 'lookup' } })
    const secondCopy = native({
      id: 'd',
      parent: 'c',
      start: 21,
      end: 29,
      attributes: { 'gen_ai.tool.name': 'lookup' },
    })
    const twins = twinToolSpans([first, firstCopy, second, secondCopy], key)
    expect([...twins]).toEqual([
      [firstCopy, first],
      [secondCopy, second],
    ])
  })

  it('never pairs spans of one instrumentation, nor copies whose ids differ', () => {
    const a = native({
      id: 'a',
      start: 0,
      end: 10,
      attributes: { 'gen_ai.tool.name': 'x', 'gen_ai.tool.call.id': '1' },
    })
    const b = native({
      id: 'b',
      start: 1,
      end: 9,
      attributes: { 'gen_ai.tool.name': 'x', 'gen_ai.tool.call.id': '2' },
    })
    const c = oi({ id: 'c', kind: 'TOOL', start: 2, end: 8, attributes: { 'tool.name': 'x' } })
    const d = { ...c, spanId: sid('d'), attributes: { ...c.attributes, 'gen_ai.tool.call.id': '3' } }
    expect(twinToolSpans([a, b], key).size).toBe(0)
    expect([...twinToolSpans([a, d], key)]).toEqual([])
    expect([...twinToolSpans([a, c], key)]).toEqual([[c, a]])
  })
})

describe('one model call recorded by two instrumentations (OpenInference and OpenLLMetry on one client)', () => {
  const llm = (
    id: string,
    parent: string,
    start: number,
    end: number,
    scope: string,
    extra: Attributes = {},
  ) => ({
    ...span({
      id,
      parent,
      start,
      end,
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': 'Where is A17?',
        ...calls([['call_1', 'lookup', '{"id": "A17"}']]),
        ...extra,
      },
    }),
    scope: { name: scope },
  })
  const trace = (): Span[] => [
    oi({ id: 'agent', kind: 'AGENT', end: 100, attributes: { 'agent.name': 'support' } }),
    llm('m1', 'agent', 1, 10, 'openinference.instrumentation.openai'),
    llm('m1b', 'm1', 2, 9, 'opentelemetry.instrumentation.openai', { 'llm.is_streaming': false }),
    oi({
      id: 't1',
      parent: 'agent',
      kind: 'TOOL',
      start: 11,
      end: 12,
      attributes: {
        'tool.name': 'lookup',
        'input.value': '{"id": "A17"}',
        'output.value': '{"status": "shipped"}',
      },
    }),
    {
      ...span({
        id: 'm2',
        parent: 'agent',
        start: 13,
        end: 20,
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.content': 'Shipped.',
        },
      }),
      scope: { name: 'openinference.instrumentation.openai' },
    },
  ]

  it('is one model call: its tool calls come out once, in one step', () => {
    const spans = trace()
    const [run] = extractAgentRuns(spans)
    expect(toolInvocations(run!)).toEqual([
      toolResult('call_1', 'lookup', { id: 'A17' }, { status: 'shipped' }),
    ])
    expect(outputSteps(run!)).toEqual([
      { texts: [], toolCallIds: ['call_1'] },
      { texts: ['Shipped.'], toolCallIds: [] },
    ])
  })
})
