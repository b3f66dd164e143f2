import { describe, expect, it } from 'vitest'
import type { TraceScores } from '../score-trace.ts'
import { deliverableOf, sinkTarget } from './delivery-targets.ts'
import type { Sink } from './sink.ts'

describe('deliverableOf', () => {
  it('keeps the records and decisions for the sinks and drops the rebuilt runs', async () => {
    const scores = {
      runs: [{ spanId: 'r' }],
      decisions: [],
      records: [{ scorerId: 's' }],
    } as unknown as TraceScores
    const deliverable = deliverableOf(scores)
    expect(deliverable).toEqual({ records: scores.records, decisions: scores.decisions })
    expect(deliverable).not.toHaveProperty('runs')
    const delivered: unknown[] = []
    const sink: Sink = {
      name: 'memory',
      deliver: async (records) => void delivered.push(...records),
      close: async () => {},
    }
    await sinkTarget(sink).deliver(deliverable)
    expect(delivered).toEqual(scores.records)
  })
})
