import { describe, expect, it } from 'vitest'
import { extractAgentRuns } from './index.ts'
import { sid, span } from './testing/span-builder.ts'

/** A span of a framework that speaks GenAI but names neither agent nor content (Spring AI's chat client). */
const framework = { 'gen_ai.operation.name': 'framework' }
const chat = { 'gen_ai.operation.name': 'chat' }
const tool = (name: string) => ({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name })

describe('runs of model calls whose prompts were not recorded', () => {
  it('are the outermost known-vocabulary span above them, one per tool call that started an agent', () => {
    const runs = extractAgentRuns([
      span({ id: 'r', name: 'client', end: 100, attributes: framework }),
      span({ id: 'a', parent: 'r', name: 'advisor', start: 1, end: 99, attributes: framework }),
      span({ id: 'c1', parent: 'a', name: 'chat', start: 2, end: 5, attributes: chat }),
      span({ id: 't', parent: 'a', name: 'execute_tool ask', start: 6, end: 50, attributes: tool('ask') }),
      span({ id: 'r2', parent: 't', name: 'client', start: 7, end: 49, attributes: framework }),
      span({ id: 'c2', parent: 'r2', name: 'chat', start: 8, end: 40, attributes: chat }),
      span({ id: 'c3', parent: 'a', name: 'chat', start: 60, end: 70, attributes: chat }),
    ])
    expect(runs.map((run) => [run.spanId, run.parentRunSpanId])).toEqual([
      [sid('r'), undefined],
      [sid('r2'), sid('r')],
    ])
    expect(runs[0]!.notes).toContain('input messages not recorded (content capture off?)')
  })

  it('make no run of a lone call, nor of a request span of no known vocabulary around one', () => {
    expect(extractAgentRuns([span({ id: 'c1', name: 'chat', attributes: chat })])).toEqual([])
    expect(
      extractAgentRuns([
        span({ id: 'h', name: 'GET /x', end: 100, attributes: { 'http.method': 'GET' } }),
        span({ id: 'c1', parent: 'h', name: 'chat', start: 1, end: 5, attributes: chat }),
      ]),
    ).toEqual([])
  })
})
