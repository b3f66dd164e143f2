import { describe, expect, it } from 'vitest'
import type { Span } from '../model/index.ts'
import { extractAgentRuns, findAgentSpans } from './index.ts'
import { countOperations } from './testing/operation-count.ts'
import { span } from './testing/span-builder.ts'
import { toolResult } from './testing/tool-invocations.ts'

/** Operations a linear transform may spend per span (it spends about 60); quadratic work runs out at once. */
const OPERATIONS_PER_SPAN = 500

/** Runs `work` on the spans, counting its operations (no wall-clock budget: the machine may be busy). */
function counted<T>(spans: Span[], work: (spans: Span[]) => T): { value: T; exceeded: boolean } {
  const { value, exceeded } = countOperations(spans, work, OPERATIONS_PER_SPAN * spans.length)
  return { value: value as T, exceeded }
}

// Counting every operation through proxies is slow on a busy machine; the counts, not the time, are checked.
describe('extractAgentRuns at scale', { timeout: 120_000 }, () => {
  it('handles one run with 12,500 steps, each a model call and a tool span without a call id', () => {
    const spans: Span[] = [
      span({ id: 'root', end: 10_000_000, attributes: { 'gen_ai.operation.name': 'invoke_agent' } }),
    ]
    for (let i = 0; i < 12_500; i++) {
      const t = 1 + i * 10
      const output = JSON.stringify([
        { role: 'assistant', parts: [{ type: 'tool_call', id: `c${i}`, name: 'work', arguments: { i } }] },
      ])
      spans.push(
        span({
          id: `s${i}`,
          parent: 'root',
          start: t,
          end: t + 9,
          attributes: { 'gen_ai.operation.name': 'agent_step' },
        }),
        span({
          id: `m${i}`,
          parent: `s${i}`,
          start: t,
          end: t + 1,
          attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.output.messages': output },
        }),
        span({
          id: `t${i}`,
          parent: `s${i}`,
          start: t + 2,
          end: t + 3,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'work',
            'gen_ai.tool.call.result': String(i),
          },
        }),
        span({
          id: `x${i}`,
          parent: `s${i}`,
          start: t + 4,
          end: t + 5,
          name: 'db.query',
          attributes: { 'db.system': 'pg' },
        }),
      )
    }
    const { value: runs, exceeded } = counted(spans, extractAgentRuns)
    const calls = runs[0]!.output[0]!.content.toolInvocations!
    expect(calls).toHaveLength(12_500)
    expect(calls[12_499]).toEqual(toolResult('c12499', 'work', { i: 12_499 }, 12_499))
    expect(exceeded).toBe(false)
  })

  it('handles 2,500 runs and 47,500 spans whose parents are missing', () => {
    const spans: Span[] = []
    for (let a = 0; a < 2_500; a++) {
      spans.push(
        span({
          id: `a${a}`,
          start: a * 100,
          end: a * 100 + 99,
          attributes: { 'gen_ai.operation.name': 'invoke_agent' },
        }),
      )
    }
    for (let o = 0; o < 47_500; o++) {
      spans.push(
        span({
          id: `o${o}`,
          parent: `lost${o}`,
          start: (o % 2_500) * 100 + 50,
          attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'w' },
        }),
      )
    }
    const { value: runs, exceeded } = counted(spans, extractAgentRuns)
    expect(runs).toHaveLength(2_500)
    expect(runs.every((run) => run.output[0]!.content.parts.length === 19)).toBe(true)
    expect(exceeded).toBe(false)
  })

  it('finds the agent spans of 50,000 spans quickly', () => {
    const spans = Array.from({ length: 50_000 }, (_, i) =>
      span({
        id: `n${i}`,
        parent: i === 0 ? undefined : `n${i - 1}`,
        start: i,
        // Each agent calls a model itself (an agent that only holds agents is a wrapper, not a run).
        attributes:
          i % 10 === 0
            ? { 'gen_ai.operation.name': 'invoke_agent' }
            : i % 10 === 5
              ? { 'gen_ai.operation.name': 'chat' }
              : {},
      }),
    )
    const { value, exceeded } = counted(spans, findAgentSpans)
    expect(value).toHaveLength(5_000)
    expect(exceeded).toBe(false)
  })

  it('handles an agent span with 150,000 direct children (no spread of huge lists)', () => {
    const spans: Span[] = [
      span({ id: 'root', end: 1_000_000, attributes: { 'openinference.span.kind': 'CHAIN' } }),
    ]
    spans.push(
      span({ id: 'llm', parent: 'root', start: 1, attributes: { 'openinference.span.kind': 'LLM' } }),
    )
    for (let i = 0; i < 150_000; i++) spans.push(span({ id: `c${i}`, parent: 'root', start: 2 + i }))
    const { value: runs, exceeded } = counted(spans, extractAgentRuns)
    expect(runs).toHaveLength(1)
    expect(exceeded).toBe(false)
  })
})
