import { describe, expect, it } from 'vitest'
import { listFixtures, loadFixture } from '../../test/fixtures/index.ts'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import type { AgentRun, AttributeValue, Span } from '../model/index.ts'
import { extractAgentRuns } from './index.ts'
import { sid, span } from './testing/span-builder.ts'
import { toolResult } from './testing/tool-invocations.ts'

/** Keys that say what a span is; cutting them makes a different trace, not a damaged one. */
const CLASSIFYING_KEYS = new Set([
  'mastra.span.type',
  'gen_ai.operation.name',
  'ai.operationId',
  'openinference.span.kind',
  'traceloop.span.kind',
  'llm.request.type',
  // Spring AI's observations: the ChatClient call is the run, `tool_call` its tools.
  'spring.ai.kind',
  // CrewAI's delegation tool heads the coworker's run: its name says what the span is.
  'tool.name',
  // Logfire's spans are what their message template says.
  'logfire.msg_template',
  'logfire.span_type',
  // Genkit: the action's kind, and `generate` (a run when called outside any flow).
  'genkit:type',
  'genkit:metadata:subtype',
  'genkit:name',
])

const agentAttributes = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'bot' }
const tool = (id: string, parent: string, start: number, extra: Record<string, AttributeValue> = {}) =>
  span({
    id,
    parent,
    name: 'execute_tool lookup',
    start,
    end: start + 2,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': `call_${id}`,
      ...extra,
    },
  })

describe('extractAgentRuns on bad or partial data', () => {
  it('returns nothing for traces without an agent span, and ignores unknown conventions', () => {
    expect(extractAgentRuns([])).toEqual([])
    expect(
      extractAgentRuns([
        span({ id: 'h1', name: 'GET /orders', attributes: { 'http.method': 'GET' } }),
        span({ id: 'c1', parent: 'h1', name: 'chat', attributes: { 'gen_ai.operation.name': 'chat' } }),
      ]),
    ).toEqual([])
  })

  it('builds a run with notes when content capture is off', () => {
    const runs = extractAgentRuns([
      span({ id: 'a1', name: 'invoke_agent bot', end: 100, attributes: agentAttributes }),
      span({
        id: 'c1',
        parent: 'a1',
        name: 'chat m',
        start: 1,
        end: 5,
        attributes: { 'gen_ai.operation.name': 'chat' },
      }),
      tool('t1', 'a1', 6),
    ])
    expect(runs).toHaveLength(1)
    const run = runs[0]!
    expect(run.input.inputMessages).toEqual([])
    expect(run.input.systemMessages).toEqual([])
    const [message] = run.output
    expect(message!.content.parts).toEqual([
      {
        type: 'tool-invocation',
        toolInvocation: { toolCallId: 'call_t1', toolName: 'lookup', args: {}, state: 'call' },
      },
    ])
    expect(message!.content.content).toBe('')
    expect(run.notes).toEqual(
      expect.arrayContaining([
        'input messages not recorded (content capture off?)',
        'tool call call_t1 (lookup): arguments not recorded',
        'tool call call_t1 (lookup): result not recorded',
        'final text not recorded (content capture off?)',
      ]),
    )
  })

  it('notes truncated JSON and falls back to the model call for the input', () => {
    const full = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Where is A17?' }] }])
    const runs = extractAgentRuns([
      span({
        id: 'a1',
        end: 100,
        attributes: { ...agentAttributes, 'gen_ai.input.messages': full.slice(0, 30) },
      }),
      span({
        id: 'c1',
        parent: 'a1',
        start: 1,
        end: 5,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.input.messages': full,
          'gen_ai.output.messages': '[{"role":"assistant","parts":[{"type":"text","content":"It sh',
        },
      }),
      tool('t1', 'a1', 6, {
        'gen_ai.tool.call.arguments': '{"id":"A1',
        'gen_ai.tool.call.result': '"shipped"',
      }),
    ])
    const run = runs[0]!
    expect(run.input.inputMessages[0]!.content.content).toBe('Where is A17?')
    expect(run.output[0]!.content.toolInvocations).toEqual([
      { toolCallId: 'call_t1', toolName: 'lookup', args: '{"id":"A1', state: 'result', result: 'shipped' },
    ])
    expect(run.notes).toEqual(
      expect.arrayContaining([
        `gen_ai.input.messages of span ${sid('a1')} is not valid JSON (truncated?)`,
        `gen_ai.tool.call.arguments of span ${sid('t1')} is not valid JSON (truncated?)`,
      ]),
    )
  })

  it('attaches spans whose parent is missing to the run whose time window holds them', () => {
    const runs = extractAgentRuns([
      span({ id: 'a1', end: 100, attributes: agentAttributes }),
      tool('t1', 'step-lost', 10, { 'gen_ai.tool.call.result': '{"ok":true}' }),
      tool('t2', 'gone', 500),
    ])
    const run = runs[0]!
    expect(run.output[0]!.content.toolInvocations?.map((call) => call.toolCallId)).toEqual(['call_t1'])
    expect(run.notes).toContain(
      `span ${sid('t1')} (execute_tool lookup) has a missing parent ${sid('step-lost')}; attached by time`,
    )
  })

  it('builds a run for an agent span whose parent is missing, noting it', () => {
    const runs = extractAgentRuns([span({ id: 'a1', parent: 'http', end: 100, attributes: agentAttributes })])
    expect(runs).toHaveLength(1)
    expect(runs[0]!.parentRunSpanId).toBeUndefined()
    expect(runs[0]!.notes).toContain(`parent span ${sid('http')} of the agent span is missing`)
  })

  it('keeps one run for a span delivered twice, and separates traces', () => {
    const first = span({ id: 'a1', end: 100, attributes: agentAttributes })
    const other = span({ id: 'a1', end: 100, attributes: agentAttributes, traceId: 'f'.repeat(32) })
    const runs = extractAgentRuns([first, { ...first }, other])
    expect(runs.map((run) => run.traceId)).toEqual([first.traceId, 'f'.repeat(32)])
  })

  it('survives a parent cycle', () => {
    const runs = extractAgentRuns([
      span({ id: 'a1', end: 100, attributes: agentAttributes }),
      tool('t1', 't2', 5),
      tool('t2', 't1', 6),
    ])
    expect(runs).toHaveLength(1)
  })

  it('still gives a run, with the error noted, when reading its spans throws', () => {
    const agent = span({ id: 'a1', end: 100, attributes: agentAttributes })
    const hostile = span({
      id: 'c1',
      parent: 'a1',
      start: 1,
      attributes: { 'gen_ai.operation.name': 'chat' },
    })
    Object.defineProperty(hostile.attributes, 'gen_ai.output.messages', {
      enumerable: true,
      get() {
        throw new Error('boom')
      },
    })
    const runs = extractAgentRuns([agent, hostile])
    expect(runs).toHaveLength(1)
    expect(runs[0]!.spanId).toBe(sid('a1'))
    expect(runs[0]!.output).toEqual([])
    expect(runs[0]!.notes).toEqual(['the run could not be rebuilt: boom'])
  })

  it('never throws on odd attribute values', () => {
    const odd: AttributeValue[] = [
      null,
      42,
      true,
      new Uint8Array([1, 2]),
      [1, 'a'],
      { a: { b: [] } },
      '',
      '{',
      '[]',
      'null',
    ]
    for (const value of odd) {
      const spans = [
        span({
          id: 'a1',
          end: 100,
          attributes: {
            ...agentAttributes,
            'gen_ai.input.messages': value,
            'gen_ai.output.messages': value,
            'gen_ai.system_instructions': value,
          },
          events: [{ name: 'gen_ai.user.message', attributes: { content: value } }],
        }),
        span({
          id: 'c1',
          parent: 'a1',
          start: 1,
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.input.messages': value,
            'gen_ai.output.messages': value,
          },
        }),
        tool('t1', 'a1', 3, {
          'gen_ai.tool.call.arguments': value,
          'gen_ai.tool.call.result': value,
          'gen_ai.tool.name': value,
        }),
      ]
      expect(() => extractAgentRuns(spans)).not.toThrow()
      expect(extractAgentRuns(spans)).toHaveLength(1)
    }
  })

  it('never throws when every string attribute of real traces is cut short', { timeout: 60_000 }, () => {
    let checked = 0
    for (const entry of listFixtures()) {
      const spans = decodeOtlpTraces(loadFixture(entry).proto)
      // Runs found by structure are found by their content: cut short, it shows no conversation.
      const named = (runs: AgentRun[]) => runs.filter((run) => run.convention !== 'generic')
      const expected = named(extractAgentRuns(spans)).length
      for (const cut of [0, 1, 7, 40]) {
        const truncated: Span[] = spans.map((original) => ({
          ...original,
          attributes: Object.fromEntries(
            Object.entries(original.attributes).map(([key, value]) => [
              key,
              typeof value === 'string' && !CLASSIFYING_KEYS.has(key) ? value.slice(0, cut) : value,
            ]),
          ),
        }))
        // Prompts cut to a few characters may no longer tell a sub-agent's conversation from its
        // caller's (runs by structure, issue 27): then it is read as a step, never as more runs.
        const found = named(extractAgentRuns(truncated)).length
        expect(found, `${entry.name} cut at ${cut}`).toBeLessThanOrEqual(expected)
        expect(found, `${entry.name} cut at ${cut}`).toBeGreaterThanOrEqual(Math.min(expected, 1))
        checked++
      }
    }
    expect(checked).toBeGreaterThan(0)
  })
})

describe('tool names missing from attributes', () => {
  it('are read from the tool span name', () => {
    const runs = extractAgentRuns([
      span({ id: 'a1', end: 100, attributes: agentAttributes }),
      span({
        id: 't1',
        parent: 'a1',
        name: 'execute_tool get_weather',
        start: 1,
        attributes: { 'gen_ai.operation.name': 'execute_tool' },
      }),
      span({
        id: 't2',
        parent: 'a1',
        name: "tool: 'refund'",
        start: 2,
        attributes: { 'mastra.span.type': 'tool_call' },
      }),
      span({
        id: 't3',
        parent: 'a1',
        name: 'ai.toolCall',
        start: 3,
        attributes: { 'ai.operationId': 'ai.toolCall' },
      }),
    ])
    expect(
      runs[0]!.output[0]!.content.parts.flatMap((p) =>
        p.type === 'tool-invocation' ? [p.toolInvocation.toolName] : [],
      ),
    ).toEqual(['get_weather', 'refund', 'unknown'])
    expect(runs[0]!.notes).toContain(`tool call ${sid('t3')}: tool name not recorded`)
  })
})

describe('tool spans without a call id', () => {
  it('are joined to the model calls of the same tool, in order, not counted twice', () => {
    const output = JSON.stringify([
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'c1', name: 'lookup', arguments: { id: 1 } },
          { type: 'tool_call', id: 'c2', name: 'lookup', arguments: { id: 2 } },
        ],
      },
    ])
    const bare = (id: string, start: number, result: string) =>
      span({
        id,
        parent: 'a1',
        name: 'execute_tool lookup',
        start,
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.call.result': result },
      })
    const runs = extractAgentRuns([
      span({ id: 'a1', end: 100, attributes: agentAttributes }),
      span({
        id: 'c',
        parent: 'a1',
        start: 1,
        end: 2,
        attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': output },
      }),
      bare('t1', 3, '"one"'),
      bare('t2', 4, '"two"'),
    ])
    expect(runs[0]!.output[0]!.content.toolInvocations).toEqual([
      toolResult('c1', 'lookup', { id: 1 }, 'one'),
      toolResult('c2', 'lookup', { id: 2 }, 'two'),
    ])
  })
})
