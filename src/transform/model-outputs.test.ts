import { describe, expect, it } from 'vitest'
import { listFixtures, loadFixture, UNREAD_FIXTURES } from '../../test/fixtures/index.ts'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import { type AgentRun, groupByTrace, type Span } from '../model/index.ts'
import type { ChatPart } from './chat-message.ts'
import { extractAgentRuns } from './index.ts'
import { ModelOutputs } from './model-outputs.ts'
import { Notes } from './notes.ts'
import { span } from './testing/span-builder.ts'

const chat = (id: string, parent: string, start: number, input: unknown[], output: unknown[]): Span =>
  span({
    id,
    parent,
    name: 'chat m',
    start,
    end: start + 5,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.input.messages': JSON.stringify(input),
      'gen_ai.output.messages': JSON.stringify(output),
    },
  })

const agent = (id: string, parent?: string) =>
  span({
    id,
    ...(parent ? { parent } : {}),
    name: 'invoke_agent bot',
    start: 0,
    end: 100,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'bot' },
  })

const user = (text: string) => ({ role: 'user', parts: [{ type: 'text', content: text }] })
const callPart = (id: string, args: unknown) => ({ type: 'tool_call', id, name: 'lookup', arguments: args })

type ToolCallPart = Extract<ChatPart, { type: 'tool-call' }>

describe('ModelOutputs', () => {
  const model = chat(
    'm',
    'a',
    10,
    [user('hi')],
    [
      {
        role: 'assistant',
        parts: [{ type: 'text', content: 'looking' }, callPart('c1', { q: { deep: 1 } })],
      },
    ],
  )

  it('reads a span once for text readers and its first keeper; a second keeper gets its own reading', () => {
    const outputs = new ModelOutputs()
    const peeked = outputs.peek(model, new Notes())
    const kept = outputs.keep(model, new Notes())
    expect(kept).toBe(peeked)
    const again = outputs.keep(model, new Notes())
    expect(again).toEqual(kept)
    expect(again).not.toBe(kept)
    const args = (messages: readonly { parts: ChatPart[] }[] | undefined) =>
      (messages![0]!.parts[1] as ToolCallPart).args as { q: { deep: number } }
    args(kept).q.deep = 99
    expect(args(again).q.deep).toBe(1)
    expect(args(new ModelOutputs().keep(model, new Notes())).q.deep).toBe(1)
  })

  it('adds the notes of a reading to every run notes it is used for', () => {
    const truncated = span({
      id: 't',
      attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': '[{"role":"assistant","par' },
    })
    const outputs = new ModelOutputs()
    const first = new Notes()
    const second = new Notes()
    expect(outputs.peek(truncated, first)).toEqual([])
    expect(outputs.keep(truncated, second)).toEqual([])
    expect(first.list()).toEqual([
      `gen_ai.output.messages of span ${truncated.spanId} is not valid JSON (truncated?)`,
      `gen_ai.output.messages of span ${truncated.spanId} could not be read`,
    ])
    expect(second.list()).toEqual(first.list())
  })
})

/**
 * Objects a scorer could change (not strings), each with the places of the runs it is reachable
 * from: `<run index>:<field>`. Walked without recursion (inputs may nest deeply).
 */
function objectPlaces(runs: readonly AgentRun[]): Map<object, Set<string>> {
  const places = new Map<object, Set<string>>()
  runs.forEach((run, index) => {
    const fields = {
      inputMessages: run.input.inputMessages,
      rememberedMessages: run.input.rememberedMessages,
      systemMessages: run.input.systemMessages,
      output: run.output,
      requestContext: run.requestContext,
    }
    for (const [field, root] of Object.entries(fields)) {
      const place = `${index}:${field}`
      const stack: unknown[] = [root]
      while (stack.length > 0) {
        const value = stack.pop()
        if (typeof value !== 'object' || value === null) continue
        const seen = places.get(value)
        if (seen?.has(place)) continue
        if (seen) seen.add(place)
        else places.set(value, new Set([place]))
        for (const child of Object.values(value)) stack.push(child)
      }
    }
  })
  return places
}

/** The objects reachable from more than one run or field of the runs (none may be). */
function sharedObjects(runs: readonly AgentRun[]): string[][] {
  return [...objectPlaces(runs).values()].filter((places) => places.size > 1).map((places) => [...places])
}

describe('values a scorer may change are reachable from one run and one field only', () => {
  it('a tool result of the first prompt that is both history and an output call is two objects', () => {
    // A provider that numbers tool calls per response: this turn's call reuses an id of the
    // history, and the history's result is given to it, as transform has always done.
    const history = [
      user('q1'),
      { role: 'assistant', parts: [callPart('c1', { q: 1 })] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: { answer: { v: 1 } } }] },
      { role: 'assistant', parts: [{ type: 'text', content: 'a1' }] },
      user('q2'),
    ]
    const spans = [
      agent('a'),
      chat('m1', 'a', 10, history, [{ role: 'assistant', parts: [callPart('c1', { q: 2 })] }]),
      chat('m2', 'a', 30, [user('q2')], [{ role: 'assistant', parts: [{ type: 'text', content: 'done' }] }]),
    ]
    const [run] = extractAgentRuns(spans)
    const outputCall = run!.output[0]!.content.parts.find((part) => part.type === 'tool-invocation')!
    const remembered = run!.input.rememberedMessages.flatMap((message) => message.content.parts)
    const historyCall = remembered.find((part) => part.type === 'tool-invocation')!
    expect(outputCall.toolInvocation).toMatchObject({ state: 'result', result: { answer: { v: 1 } } })
    expect(historyCall.toolInvocation).toMatchObject({ state: 'result', result: { answer: { v: 1 } } })
    ;(outputCall.toolInvocation as { result: { answer: { v: number } } }).result.answer.v = 99
    expect(historyCall.toolInvocation).toMatchObject({ result: { answer: { v: 1 } } })
    expect(sharedObjects([run!])).toEqual([])
  })

  it('a change to one extraction’s run is not seen by the next extraction of the same spans', () => {
    const spans = [
      agent('a'),
      chat(
        'm1',
        'a',
        10,
        [user('q')],
        [
          {
            role: 'assistant',
            parts: [{ type: 'text', content: 'looking' }, callPart('c1', { q: { v: 1 } })],
          },
        ],
      ),
    ]
    const [first] = extractAgentRuns(spans)
    const part = first!.output[0]!.content.parts.find((p) => p.type === 'tool-invocation')!
    ;(part.toolInvocation.args as { q: { v: number } }).q.v = 99
    const [second] = extractAgentRuns(spans)
    const again = second!.output[0]!.content.parts.find((p) => p.type === 'tool-invocation')!
    expect(again.toolInvocation.args).toEqual({ q: { v: 1 } })
    expect(second!.output[0]!.content.content).toBe('looking')
  })

  it('nor when the answer came from a provider body under a key of the producer’s own', () => {
    // No GenAI output key: the answer is read from the OpenAI response body (`modelContent`).
    const response = {
      choices: [
        {
          message: {
            role: 'assistant',
            content: 'looking',
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":{"v":1}}' } },
            ],
          },
        },
      ],
    }
    const model = span({
      id: 'm1',
      parent: 'a',
      name: 'chat m',
      start: 10,
      end: 15,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': JSON.stringify([user('q')]),
        'vendor.response.body': JSON.stringify(response),
      },
    })
    const spans = [agent('a'), model]
    const [first] = extractAgentRuns(spans)
    const part = first!.output[0]!.content.parts.find((p) => p.type === 'tool-invocation')!
    expect(part.toolInvocation.args).toEqual({ q: { v: 1 } })
    ;(part.toolInvocation.args as { q: { v: number } }).q.v = 99
    const [second] = extractAgentRuns(spans)
    const again = second!.output[0]!.content.parts.find((p) => p.type === 'tool-invocation')!
    expect(again.toolInvocation.args).toEqual({ q: { v: 1 } })
  })

  // Every fixture trace (every producer, nested runs, handoffs, history): no object of one run or
  // field is reachable from another run or field. Mastra's mirrors within one message are allowed.
  const fixtures = listFixtures().filter((entry) => !UNREAD_FIXTURES.has(entry.name))
  it.each(fixtures.map((entry) => [entry.name, entry] as const))('%s', (_name, entry) => {
    const spans = decodeOtlpTraces(loadFixture(entry).proto, 'otlp_proto')
    // A streamed call may leave a trace of its own without a run (an HTTP client span).
    let count = 0
    for (const trace of groupByTrace(spans).values()) {
      const runs = extractAgentRuns(trace)
      count += runs.length
      expect(sharedObjects(runs)).toEqual([])
    }
    expect(count).toBeGreaterThan(0)
  })
})
