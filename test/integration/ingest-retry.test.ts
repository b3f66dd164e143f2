import { afterAll, describe, expect, it } from 'vitest'
import { createKafkaSource, type IngestedTrace } from '../../src/ingest/kafka-source.ts'
import {
  byTrace,
  encodeOtlpProto,
  generateAgentTraffic,
  isGeneratedAgentSpan,
} from '../../src/ingest/testing/agent-traffic.ts'
import { silentLogger } from '../../src/ops/logger.ts'
import {
  committedOffsets,
  createTopic,
  testKafka,
  uniqueName,
  untilFullyCommitted,
} from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

const kafka = testKafka()
const producer = kafka.producer()
afterAll(() => producer.disconnect())

describe('downstream failures', () => {
  it('retries a failed delivery (not the scoring) and commits its records only after it succeeded', async () => {
    await producer.connect()
    const topic = uniqueName('ingest-retry')
    const groupId = uniqueName('group')
    await createTopic(kafka, topic, 1)
    const traffic = generateAgentTraffic({ runs: 10, seed: 61 })
    const messages = [...byTrace(traffic.spans)].map(([traceId, spans]) => ({
      key: traceId,
      value: encodeOtlpProto(spans),
    }))
    await producer.send({ topic, acks: -1, messages })

    const scored = new Map<string, number>()
    const attempts = new Map<string, number>()
    const delivered = new Set<string>()
    const failing = traffic.runs[0]!.traceId
    let releaseFailing = false
    const source = createKafkaSource<IngestedTrace>({
      kafka,
      topic,
      groupId,
      fromBeginning: true,
      isAgentRunSpan: isGeneratedAgentSpan,
      settleMs: 200,
      tickMs: 20,
      commitIntervalMs: 100,
      deliveryPolicy: { retries: Infinity, initialDelayMs: 20, maxDelayMs: 100, multiplier: 2, jitter: 0 },
      logger: silentLogger(),
      // "Scoring": counted, to show it happens once per trace whatever the deliveries do.
      process: async (trace) => {
        scored.set(trace.traceId, (scored.get(trace.traceId) ?? 0) + 1)
        return trace
      },
      targets: [
        {
          name: 'sink',
          deliver: ((trace: IngestedTrace) => {
            const n = (attempts.get(trace.traceId) ?? 0) + 1
            attempts.set(trace.traceId, n)
            // Every delivery fails twice (once by throwing synchronously); the first trace's until released.
            if (n === 1) throw new Error('sink unavailable')
            if (n === 2) return Promise.reject(new Error('sink timeout'))
            if (trace.traceId === failing && !releaseFailing) return Promise.reject(new Error('still down'))
            for (const id of trace.agentSpanIds) delivered.add(id)
            return Promise.resolve()
          }) as (trace: IngestedTrace) => Promise<void>,
        },
      ],
    })
    await source.start()
    try {
      await until(
        () => delivered.size >= traffic.runs.length - 1,
        60_000,
        () => 'all but the failing run delivered',
      )
      // The failing trace's record is the first one: nothing may be committed past it.
      await until(
        () => source.stats().commits > 0 || (attempts.get(failing) ?? 0) > 3,
        60_000,
        () => 'a commit attempt',
      )
      const committed = Number((await committedOffsets(kafka, groupId, topic)).get(0))
      expect(committed).toBeLessThanOrEqual(0)
      releaseFailing = true
      await until(
        () => delivered.size >= traffic.runs.length,
        60_000,
        () => 'the failing run delivered',
      )
      await untilFullyCommitted(kafka, groupId, topic, 'offsets committed to the end')
    } finally {
      await source.stop()
    }
    for (const run of traffic.runs) {
      expect(attempts.get(run.traceId)).toBeGreaterThanOrEqual(3)
      expect(scored.get(run.traceId)).toBe(1)
    }
    expect(source.stats().deliveryFailures).toBeGreaterThanOrEqual(2 * traffic.runs.length)
  })
})
