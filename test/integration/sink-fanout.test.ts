import { randomUUID } from 'node:crypto'
import { Kafka, logLevel } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FanOutDeliveryError } from '../../src/sink/combine-sinks.ts'
import { createSinks } from '../../src/sink/create-sinks.ts'
import type { ScoreMessage } from '../../src/sink/score-message.ts'
import { decodeOtlpJsonSpans } from '../../src/sink/testing/otlp-json.ts'
import { type RecordingServer, startRecordingServer } from '../../src/sink/testing/recording-server.ts'
import { scoreRecordFixture } from '../../src/sink/testing/score-record-fixture.ts'

// The fan-out over the real broker and an OTLP backend that fails on demand: a delivery is
// acknowledged only when every sink took it; after a failure the pipeline delivers again, and
// every sink writes idempotently (same span ids, same score-topic `id` for consumers to dedupe).

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',')
const kafka = new Kafka({ clientId: 'sink-fanout-test', brokers, logLevel: logLevel.NOTHING })
const admin = kafka.admin()
const topic = `tracescore-fanout-${randomUUID()}`
let otlp: RecordingServer

beforeAll(async () => {
  otlp = await startRecordingServer()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true })
})
afterAll(async () => {
  await otlp.close()
  await admin.deleteTopics({ topics: [topic] }).catch(() => {})
  await admin.disconnect()
})

async function readTopic(count: number): Promise<ScoreMessage[]> {
  const consumer = kafka.consumer({ groupId: `sink-fanout-${randomUUID()}` })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  const values: ScoreMessage[] = []
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        eachMessage: async ({ message }) => {
          values.push(JSON.parse(String(message.value)) as ScoreMessage)
          if (values.length >= count) resolve()
        },
      })
      .catch(reject)
  })
  await consumer.disconnect()
  return values
}

describe('fan-out to Kafka and OTLP', () => {
  it('rejects while OTLP is down even though Kafka took the scores; the redelivery reaches both, idempotently', async () => {
    const sinks = createSinks([
      {
        type: 'otlp',
        endpoint: `${otlp.baseUrl}/v1/traces`,
        protocol: 'http/json',
        retry: { retries: 1 },
        sleep: async () => {},
      },
      { type: 'kafka', brokers, topic },
    ])
    const records = [scoreRecordFixture(), scoreRecordFixture({ scorerId: 'tone', score: 0.4 })]

    otlp.failNext(2, 500)
    const error = await sinks.deliver(records).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(FanOutDeliveryError)
    expect((error as FanOutDeliveryError).failedSinks).toEqual(['otlp'])

    await sinks.deliver(records) // what the pipeline does next: the same records again
    await sinks.close()

    expect(sinks.memberStats()).toMatchObject({
      otlp: { delivered: 2, failed: 2, retries: 1 },
      kafka: { delivered: 4, failed: 0 },
    })
    const exported = otlp.requests.map((r) => decodeOtlpJsonSpans(r.json).map((s) => s.spanId))
    expect(otlp.requests.map((r) => r.status)).toEqual([500, 500, 200])
    expect(new Set(exported.map((ids) => ids.join()))).toHaveProperty('size', 1)

    const messages = await readTopic(4)
    expect(messages).toHaveLength(4)
    // At-least-once on the topic: each score twice, with the same id for consumers to dedupe.
    expect(new Set(messages.map((m) => m.id)).size).toBe(2)
    expect(messages.map((m) => m.id).sort()).toEqual(exported[2]!.flatMap((id) => [id, id]).sort())
  })
})
