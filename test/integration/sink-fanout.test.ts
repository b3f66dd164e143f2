import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeOtlpTraces } from '../../src/ingest/decode/index.ts'
import { FanOutDeliveryError } from '../../src/sink/combine-sinks.ts'
import { createSinks } from '../../src/sink/create-sinks.ts'
import type { ScoreMessage } from '../../src/sink/score-message.ts'
import { type RecordingServer, startRecordingServer } from '../../src/sink/testing/recording-server.ts'
import { scoreRecordFixture } from '../../src/sink/testing/score-record-fixture.ts'
import { createTopic, deleteTopics, readTopic, testBrokers, testKafka, uniqueName } from '../helpers/kafka.ts'

// The fan-out over the real broker and an OTLP backend that fails on demand: a delivery is
// acknowledged only when every sink took it; after a failure the pipeline delivers again, and
// every sink writes idempotently (same span ids, same score-topic `id` for consumers to dedupe).

const brokers = testBrokers()
const kafka = testKafka('sink-fanout-test')
const topic = uniqueName('tracescore-fanout')
let otlp: RecordingServer

beforeAll(async () => {
  otlp = await startRecordingServer()
  await createTopic(kafka, topic, 1)
})
afterAll(async () => {
  await otlp.close()
  await deleteTopics(kafka, [topic])
})

/** The score messages of the topic, from the beginning. */
async function readScores(count: number): Promise<ScoreMessage[]> {
  return (await readTopic(kafka, topic, count)).map((r) => JSON.parse(String(r.value)) as ScoreMessage)
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
    const exported = otlp.requests.map((r) => decodeOtlpTraces(r.body).map((s) => s.spanId))
    expect(otlp.requests.map((r) => r.status)).toEqual([500, 500, 200])
    expect(new Set(exported.map((ids) => ids.join()))).toHaveProperty('size', 1)

    const messages = await readScores(4)
    expect(messages).toHaveLength(4)
    // At-least-once on the topic: each score twice, with the same id for consumers to dedupe.
    expect(new Set(messages.map((m) => m.id)).size).toBe(2)
    expect(messages.map((m) => m.id).sort()).toEqual(exported[2]!.flatMap((id) => [id, id]).sort())
  })
})
