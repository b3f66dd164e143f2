import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKafkaScoreSink } from '../../src/sink/kafka-score-sink.ts'
import { SinkDeliveryError } from '../../src/sink/retrying-delivery.ts'
import { type ScoreMessage, scoreMessageSchema } from '../../src/sink/score-message.ts'
import { scoreSpanId } from '../../src/sink/score-span-id.ts'
import { scoreRecordFixture } from '../../src/sink/testing/score-record-fixture.ts'
import { createTopic, deleteTopics, readTopic, testBrokers, testKafka, uniqueName } from '../helpers/kafka.ts'

// Needs the local broker: bash scripts/kafka-start.sh (KAFKA_BROKERS overrides the address).
const brokers = testBrokers()
const kafka = testKafka('sink-kafka-test')
const topic = uniqueName('tracescore-scores')

/** Reads `count` score records of the topic from the beginning with a real consumer. */
async function readScores(count: number) {
  return (await readTopic(kafka, topic, count)).map((r) => ({
    ...r,
    key: String(r.key),
    value: JSON.parse(String(r.value)) as ScoreMessage,
  }))
}

beforeAll(() => createTopic(kafka, topic, 3))
afterAll(() => deleteTopics(kafka, [topic]))

describe('Kafka score sink on a real broker', () => {
  it('writes one JSON record per score, keyed by trace id, acknowledged before deliver resolves', async () => {
    const sink = createKafkaScoreSink({ brokers, topic })
    const traceA = scoreRecordFixture()
    const traceB = scoreRecordFixture({
      traceId: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      scorerId: 'toxicity',
      score: 0,
      incomplete: true,
    })
    const failed = scoreRecordFixture({
      scorerId: 'judge-broke',
      score: undefined,
      reason: undefined,
      error: { type: 'JudgeError', message: 'no answer' },
    })
    await sink.deliver([traceA, traceB, failed])
    await sink.close()
    expect(sink.stats()).toEqual({ delivered: 3, failed: 0, retries: 0, skipped: 0 })

    const received = await readScores(3)
    const byScorer = new Map(received.map((r) => [r.value.scorerId, r]))
    expect([...byScorer.keys()].sort()).toEqual(['judge-broke', 'task-success', 'toxicity'])

    const a = byScorer.get('task-success')!
    expect(a.key).toBe(traceA.traceId)
    expect(a.headers).toEqual({ 'content-type': 'application/json', 'tracescore-schema': scoreMessageSchema })
    expect(a.timestamp).toBe(String(traceA.timestampMs))
    expect(a.value).toMatchObject({
      schema: scoreMessageSchema,
      id: scoreSpanId(traceA.traceId, traceA.spanId, 'task-success'),
      traceId: traceA.traceId,
      spanId: traceA.spanId,
      score: 0.82,
      reason: traceA.reason,
      judge: traceA.judge,
    })
    expect(byScorer.get('toxicity')!.key).toBe('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')
    expect(byScorer.get('toxicity')!.value.score).toBe(0)
    // The run of an incomplete trace says so on the record, as its score span does.
    expect(byScorer.get('toxicity')!.value.incomplete).toBe(true)
    expect(a.value).not.toHaveProperty('incomplete')
    expect(byScorer.get('judge-broke')!.value.error).toEqual({ type: 'JudgeError', message: 'no answer' })
    // Same key, same partition: both scores of trace A are in one partition.
    expect(byScorer.get('judge-broke')!.partition).toBe(a.partition)
  })

  it('uses a caller-owned producer without disconnecting it', async () => {
    const producer = kafka.producer()
    await producer.connect()
    const sink = createKafkaScoreSink({ producer, topic })
    await sink.deliver([scoreRecordFixture({ scorerId: 'owned' })])
    await sink.close()
    // Still connected: a plain send works after close().
    await producer.send({ topic, messages: [{ key: 'x', value: '{"schema":"other"}' }] })
    await producer.disconnect()
    const received = await readScores(5)
    expect(received.some((r) => r.value.scorerId === 'owned')).toBe(true)
  })

  it('rejects after its retry budget when no broker answers, reconnecting on every attempt', async () => {
    const sink = createKafkaScoreSink({
      brokers: ['127.0.0.1:1'],
      client: { retry: { retries: 0 }, connectionTimeout: 500 },
      topic,
      retry: { retries: 2 },
      sleep: async () => {},
    })
    const error = await sink.deliver([scoreRecordFixture()]).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SinkDeliveryError)
    expect(error).toMatchObject({ sink: 'kafka', attempts: 3 })
    expect((error as SinkDeliveryError).cause).toMatchObject({ name: expect.stringMatching(/KafkaJS/) })
    expect(sink.stats()).toEqual({ delivered: 0, failed: 1, retries: 2, skipped: 0 })
    await sink.close()
  })
})
