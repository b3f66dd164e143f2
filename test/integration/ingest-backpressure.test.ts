import { afterAll, describe, expect, it } from 'vitest'
import { createKafkaSource } from '../../src/ingest/kafka-source.ts'
import {
  byTrace,
  encodeOtlpProto,
  generateAgentTraffic,
  isGeneratedAgentSpan,
} from '../../src/ingest/testing/agent-traffic.ts'
import { deliverTraces } from '../../src/ingest/testing/deliver-traces.ts'
import { createTopic, fullyCommitted, testKafka, uniqueName, untilFullyCommitted } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

const kafka = testKafka()
const producer = kafka.producer()
afterAll(() => producer.disconnect())

describe('backpressure', () => {
  it('pauses reading while downstream is full (Kafka lag is the buffer) and resumes when it drains', async () => {
    await producer.connect()
    const topic = uniqueName('ingest-backpressure')
    const groupId = uniqueName('group')
    await createTopic(kafka, topic, 1)
    // ~10 KB per record: one fetch (1 MB per partition) brings only a part of the topic.
    const traffic = generateAgentTraffic({ runs: 1000, contentWords: 300, seed: 51 })
    const messages = [...byTrace(traffic.spans)].map(([traceId, spans]) => ({
      key: traceId,
      value: encodeOtlpProto(spans),
    }))
    for (let i = 0; i < messages.length; i += 20)
      await producer.send({ topic, acks: -1, messages: messages.slice(i, i + 20) })

    let open!: () => void
    const gate = new Promise<void>((resolve) => {
      open = resolve
    })
    const delivered = new Set<string>()
    const source = createKafkaSource({
      kafka,
      topic,
      groupId,
      fromBeginning: true,
      isAgentRunSpan: isGeneratedAgentSpan,
      settleMs: 100,
      tickMs: 20,
      commitIntervalMs: 100,
      maxInFlightTraces: 2,
      maxQueuedTraces: 10,
      pauseAtBufferedSpans: 100,
      ...deliverTraces(async (trace) => {
        await gate // downstream stuck (a judge outage)
        for (const id of trace.agentSpanIds) delivered.add(id)
      }),
    })
    await source.start()
    try {
      await until(
        () => source.stats().paused,
        60_000,
        () => 'paused',
      )
      const readWhenPaused = source.stats().records
      // While downstream is stuck the source stays paused and does not read the topic to its end.
      await new Promise((r) => setTimeout(r, 1_500))
      const stuck = source.stats()
      expect(stuck.paused).toBe(true)
      expect(stuck.records).toBeLessThan(messages.length)
      expect(stuck.records - readWhenPaused).toBeLessThan(messages.length / 2)
      expect(delivered.size).toBe(0)
      // Nothing was acknowledged, so nothing may be committed.
      expect(await fullyCommitted(kafka, groupId, topic)).toBe(false)

      open()
      await until(
        () => delivered.size >= traffic.runs.length,
        60_000,
        () => 'every run delivered',
      )
      await untilFullyCommitted(kafka, groupId, topic, 'offsets committed to the end')
      expect(source.stats().paused).toBe(false)
    } finally {
      open()
      await source.stop()
    }
    expect(source.stats().records).toBe(messages.length)
  })
})
