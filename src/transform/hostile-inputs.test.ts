import { describe, expect, it } from 'vitest'
import { type AgentRun, type Attributes, type Span, StatusCode } from '../model/index.ts'
import { detectConvention, extractAgentRuns, spanRole } from './index.ts'
import {
  agentsUnderDeepChain,
  manySystemMessages,
  nestedToolSpans,
  orphansAfterFinishedAgents,
} from './testing/hostile-inputs.ts'
import { countOperations } from './testing/operation-count.ts'
import { toolInvocations } from './testing/output-steps.ts'
import { sid, span } from './testing/span-builder.ts'
import { toolResult } from './testing/tool-invocations.ts'

/** Small and large sizes: the large one is twice the small one. */
const SIZE = 10_000
/** Work a linear transform may do per unit of input (span or message), generously; a quadratic one blows through it early. */
const OPERATIONS_PER_UNIT = 500

/**
 * Runs the transform on a class of hostile input at two sizes and checks the work grows at most
 * linearly (allowing for sorting): twice the input may cost at most 2.5 times the operations.
 */
function expectLinear(build: (size: number) => Span[]): AgentRun[] {
  const small = build(SIZE)
  const large = build(2 * SIZE)
  const first = countOperations(small, extractAgentRuns, OPERATIONS_PER_UNIT * SIZE)
  const second = countOperations(large, extractAgentRuns, OPERATIONS_PER_UNIT * 2 * SIZE)
  expect(first.exceeded, `${first.operations} operations at size ${SIZE}`).toBe(false)
  expect(second.exceeded, `${second.operations} operations at size ${2 * SIZE}`).toBe(false)
  expect(second.operations / first.operations).toBeLessThanOrEqual(2.5)
  return second.value!
}

// Counting every operation through proxies is slow on a busy machine; the counts, not the time, are checked.
describe('hostile inputs: the transform stays linear', { timeout: 120_000 }, () => {
  it('agents under a deep chain of plain spans: each parent run found without walking the chain again', () => {
    const runs = expectLinear(agentsUnderDeepChain)
    expect(runs).toHaveLength(1 + SIZE)
    expect(runs[0]!.spanId).toBe(sid('root'))
    expect(runs.slice(1).every((run) => run.parentRunSpanId === sid('root'))).toBe(true)
  })

  it('orphans after many finished agents: each given to the run still open, without passing every finished run', () => {
    const runs = expectLinear(orphansAfterFinishedAgents)
    const long = runs.find((run) => run.agentName === 'long')!
    const calls = toolInvocations(long)
    expect(calls).toHaveLength(SIZE)
    expect(calls[SIZE - 1]).toEqual(toolResult(`call${SIZE - 1}`, 'lookup', { i: SIZE - 1 }, SIZE - 1))
    expect(runs.filter((run) => run !== long).every((run) => toolInvocations(run).length === 0)).toBe(true)
  })

  it('deeply nested tool spans: the step of each found without walking up the nesting', () => {
    const runs = expectLinear(nestedToolSpans)
    expect(runs).toHaveLength(1)
    const calls = toolInvocations(runs[0]!)
    expect(calls).toHaveLength(2 * SIZE)
    expect(calls.map((call) => call.toolCallId)).toEqual(
      Array.from({ length: 2 * SIZE }, (_, i) => `call${i}`),
    )
    // All in the one step of the one model call: no step boundaries.
    expect(runs[0]!.output[0]!.content.parts.some((part) => part.type === 'step-start')).toBe(false)
  })

  it('many system messages: de-duplicated in one pass, first occurrence order kept', () => {
    const runs = expectLinear(manySystemMessages)
    expect(runs[0]!.input.systemMessages).toEqual(
      Array.from({ length: SIZE }, (_, i) => ({ role: 'system', content: `rule ${i}` })),
    )
    expect(runs[0]!.input.inputMessages.map((message) => message.content.content)).toEqual(['hello'])
  })

  it('a 50,000-deep chain between an agent and its model and tool calls: no stack overflow, the right run', () => {
    const depth = 50_000
    const spans: Span[] = [
      span({ id: 'root', end: 1_000, attributes: { 'gen_ai.operation.name': 'invoke_agent' } }),
    ]
    for (let i = 0; i < depth; i++) {
      spans.push(span({ id: `c${i}`, parent: i === 0 ? 'root' : `c${i - 1}`, start: 1, end: 900 }))
    }
    const bottom = `c${depth - 1}`
    spans.push(
      span({
        id: 'model',
        parent: bottom,
        start: 2,
        end: 3,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.input.messages': JSON.stringify([
            { role: 'user', parts: [{ type: 'text', content: 'go' }] },
          ]),
          'gen_ai.output.messages': JSON.stringify([
            {
              role: 'assistant',
              parts: [{ type: 'tool_call', id: 'call_1', name: 'dig', arguments: { depth } }],
            },
          ]),
        },
      }),
      span({
        id: 'tool',
        parent: bottom,
        start: 4,
        end: 5,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'dig',
          'gen_ai.tool.call.id': 'call_1',
          'gen_ai.tool.call.result': '"found"',
        },
      }),
      span({
        id: 'sub',
        parent: bottom,
        start: 6,
        end: 7,
        attributes: { 'gen_ai.operation.name': 'invoke_agent' },
      }),
    )
    const { value: runs, exceeded } = countOperations(
      spans,
      extractAgentRuns,
      OPERATIONS_PER_UNIT * spans.length,
    )
    expect(exceeded).toBe(false)
    expect(runs!.map((run) => run.spanId)).toEqual([sid('root'), sid('sub')])
    expect(runs![1]!.parentRunSpanId).toBe(sid('root'))
    expect(runs![0]!.input.inputMessages.map((message) => message.content.content)).toEqual(['go'])
    expect(toolInvocations(runs![0]!)).toEqual([toolResult('call_1', 'dig', { depth }, 'found')])
  })
})

describe('hostile inputs: every tool call is kept', () => {
  const agent = span({ id: 'root', end: 100, attributes: { 'gen_ai.operation.name': 'invoke_agent' } })
  /** A 1 ms span under the agent. */
  const child = (id: string, start: number, attributes: Attributes) =>
    span({ id, parent: 'root', start, end: start + 1, attributes })
  const tool = (id: string, start: number, args: unknown, result: unknown) =>
    child(id, start, {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.call.arguments': JSON.stringify(args),
      'gen_ai.tool.call.result': JSON.stringify(result),
    })

  it('two tool spans sharing a call id are two calls, and the run says so', () => {
    const runs = extractAgentRuns([agent, tool('t1', 10, { q: 'a' }, 'A'), tool('t2', 20, { q: 'b' }, 'B')])
    expect(toolInvocations(runs[0]!)).toEqual([
      toolResult('call_1', 'lookup', { q: 'a' }, 'A'),
      toolResult('call_1', 'lookup', { q: 'b' }, 'B'),
    ])
    expect(runs[0]!.notes).toContain(
      'tool call id call_1 is shared by several tool spans; each is kept as a call',
    )
  })

  it('a provider that numbers calls per response: the same id in two model calls is two calls, each with its own result', () => {
    const model = (id: string, start: number, prompt: unknown[], output: unknown[]) =>
      child(id, start, {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': JSON.stringify(prompt),
        'gen_ai.output.messages': JSON.stringify(output),
      })
    const user = { role: 'user', parts: [{ type: 'text', content: 'two lookups' }] }
    const call = (q: string) => ({
      role: 'assistant',
      parts: [{ type: 'tool_call', id: 'call_0', name: 'lookup', arguments: { q } }],
    })
    const result = (value: string) => ({
      role: 'tool',
      parts: [{ type: 'tool_call_response', id: 'call_0', response: value }],
    })
    // No tool spans: results come only from the prompts, which repeat every earlier result.
    const runs = extractAgentRuns([
      agent,
      model('m1', 10, [user], [call('a')]),
      model('m2', 20, [user, call('a'), result('A')], [call('b')]),
      model(
        'm3',
        30,
        [user, call('a'), result('A'), call('b'), result('B')],
        [{ role: 'assistant', parts: [{ type: 'text', content: 'done' }] }],
      ),
    ])
    expect(toolInvocations(runs[0]!)).toEqual([
      toolResult('call_0', 'lookup', { q: 'a' }, 'A'),
      toolResult('call_0', 'lookup', { q: 'b' }, 'B'),
    ])
  })
})

describe('hostile inputs: nothing inherited is read', () => {
  const agentWith = (
    attributes: Record<string, unknown>,
    events: Parameters<typeof span>[0]['events'] = [],
  ) =>
    span({
      id: 'root',
      end: 100,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', ...attributes } as Span['attributes'],
      events,
    })

  it('message roles named like Object.prototype members are unknown roles, never functions', () => {
    const messages = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'user'].map((role) => ({
      role,
      parts: [{ type: 'text', content: `as ${role}` }],
    }))
    const [run] = extractAgentRuns([agentWith({ 'gen_ai.input.messages': JSON.stringify(messages) })])
    const all = [...run!.input.inputMessages, ...run!.input.rememberedMessages]
    expect(all.map((message) => [message.role, message.content.content])).toEqual([['user', 'as user']])
  })

  it('an HTTP span with an event named toString is not a model call', () => {
    const http = span({
      id: 'http',
      name: 'GET /orders',
      attributes: { 'http.request.method': 'GET' },
      events: [
        { name: 'toString', attributes: {} },
        { name: 'constructor', attributes: {} },
      ],
    })
    expect(spanRole(http)).toBe('other')
    expect(detectConvention(http)).toBeUndefined()
  })

  it('keys named __proto__ stay data: metadata, flattened messages and event bodies cannot plant inherited values', () => {
    const planted = { conversationId: 'planted', 'message.role': 'user', 'message.content': 'planted' }
    const [run] = extractAgentRuns([
      span({
        id: 'root',
        end: 100,
        attributes: {
          'openinference.span.kind': 'AGENT',
          metadata: `{"__proto__":${JSON.stringify(planted)},"team":"a"}`,
          'metadata.__proto__': planted,
          'llm.input_messages.0.__proto__': planted,
          'llm.input_messages.1.message.role': 'user',
          'llm.input_messages.1.message.content': 'real',
        },
      }),
    ])
    expect(run!.conversationId).toBeUndefined()
    expect(Object.getPrototypeOf(run!.requestContext)).toBe(Object.prototype)
    expect(run!.requestContext!.conversationId).toBeUndefined()
    expect(run!.requestContext!.team).toBe('a')
    expect(run!.input.inputMessages.map((message) => message.content.content)).toEqual(['real'])
    const [events] = extractAgentRuns([
      agentWith({}, [
        { name: 'gen_ai.user.message', attributes: { ['__proto__']: { body: { content: 'planted' } } } },
        { name: 'gen_ai.user.message', attributes: { content: 'hi' } },
      ]),
    ])
    const texts = events!.input.inputMessages.map((message) => message.content.content)
    expect(texts).not.toContain('planted')
    expect(texts).toContain('hi')
  })
})

describe('hostile inputs: patterns over producer text do not backtrack', () => {
  it('a tool error envelope with a long run of backslashes and no closing quote', () => {
    const scope = { name: 'openinference.instrumentation.openai_agents' }
    const oi = (spec: Parameters<typeof span>[0]): Span => ({ ...span(spec), scope })
    const message = `Error running tool (non-fatal): {'tool_name': 'lookup', 'error': '${'\\'.repeat(50_000)}x`
    const [run] = extractAgentRuns([
      oi({ id: 'ag', end: 100, attributes: { 'openinference.span.kind': 'AGENT', 'agent.name': 'a' } }),
      oi({ id: 'm', parent: 'ag', start: 1, end: 2, attributes: { 'openinference.span.kind': 'LLM' } }),
      {
        ...oi({
          id: 't',
          parent: 'ag',
          start: 3,
          end: 4,
          attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'lookup' },
        }),
        status: { code: StatusCode.ERROR, message },
      },
    ])
    // Not an envelope it can read: the status message is the error, whole.
    expect(toolInvocations(run!)[0]).toMatchObject({ state: 'output-error', errorText: message })
  })

  it('a tool span name with a long run of spaces before a quote', () => {
    const [run] = extractAgentRuns([
      span({ id: 'ag', end: 100, attributes: { 'gen_ai.operation.name': 'invoke_agent' } }),
      span({ id: 'm', parent: 'ag', start: 1, end: 2, attributes: { 'gen_ai.operation.name': 'chat' } }),
      span({
        id: 't',
        parent: 'ag',
        start: 3,
        end: 4,
        name: `execute_tool${' '.repeat(50_000)}x'y'z`,
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.call.result': '1' },
      }),
    ])
    expect(toolInvocations(run!)[0]).toMatchObject({ toolName: 'unknown', state: 'result', result: 1 })
  })
})
