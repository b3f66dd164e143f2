import { PassThrough } from 'node:stream'
import type { Producer } from 'kafkajs'
import { describe, expect, it } from 'vitest'
import { createMetrics } from '../ops/metrics.ts'
import type { TraceScores } from '../score-trace.ts'
import { createSink } from './create-sinks.ts'
import { sinkTarget } from './delivery-targets.ts'
import { scoreRecordFixture } from './testing/score-record-fixture.ts'

describe('sinkTarget', () => {
  it('counts deliveries per configured sink, under the sink type the configuration names', async () => {
    const metrics = createMetrics()
    const down = { send: async () => Promise.reject(new Error('broker down')) } as unknown as Producer
    const kafka = createSink({ type: 'kafka', producer: down, topic: 'scores', retry: { retries: 0 } })
    const jsonl = createSink({ type: 'jsonl', stream: new PassThrough() })
    const scores = { runs: [], decisions: [], records: [scoreRecordFixture(), scoreRecordFixture()] }
    await sinkTarget(jsonl, metrics).deliver(scores as TraceScores)
    await expect(sinkTarget(kafka, metrics).deliver(scores as TraceScores)).rejects.toThrow()
    const counted = (await metrics.sinkDeliveries.get()).values.map((v) => [
      `${v.labels.sink}/${v.labels.result}`,
      v.value,
    ])
    expect(Object.fromEntries(counted)).toEqual({ 'jsonl/delivered': 2, 'kafka/failed': 2 })
  })
})
