import { afterAll, describe, expect, it } from 'vitest'
import { DeadLetterHeader } from '../../src/ingest/dead-letter.ts'
import { createKafkaSource } from '../../src/ingest/kafka-source.ts'
import {
  byTrace,
  encodeOtlpProto,
  generateAgentTraffic,
  isGeneratedAgentSpan,
} from '../../src/ingest/testing/agent-traffic.ts'
import { deliverTraces } from '../../src/ingest/testing/deliver-traces.ts'
import { createLogger, type Logger } from '../../src/ops/logger.ts'
import { createTopic, readTopic, testKafka, uniqueName, untilFullyCommitted } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

const kafka = testKafka()
const producer = kafka.producer()
afterAll(() => producer.disconnect())

describe('poison records', () => {
  it('sends undecodable records to the dead-letter topic with the error in headers; good runs all arrive', async () => {
    await producer.connect()
    const topic = uniqueName('ingest-poison')
    const dlq = `${topic}_dlq`
    const groupId = uniqueName('group')
    await createTopic(kafka, topic, 1)
    await createTopic(kafka, dlq, 1)
    const traffic = generateAgentTraffic({ runs: 12, seed: 5 })
    const good = [...byTrace(traffic.spans)].map(([traceId, spans]) => ({
      key: traceId,
      value: encodeOtlpProto(spans),
    }))
    const truncated = good[0]!.value.subarray(0, good[0]!.value.length - 9)
    const poison = [
      {
        key: 'garbage',
        value: Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]),
      },
      { key: 'truncated', value: Buffer.from(truncated) },
      { key: 'json-in-proto-topic', value: Buffer.from('{"resourceSpans": 5}') },
    ]
    // Poison among the good records: positions 2, 6 and 10; plus a record without a value.
    const messages = [...good]
    messages.splice(2, 0, poison[0]!)
    messages.splice(6, 0, poison[1]!)
    messages.splice(10, 0, poison[2]!)
    messages.push({ key: 'tombstone', value: null as unknown as Buffer })
    await producer.send({ topic, messages, acks: -1 })

    const warnings: { msg: string; level: number }[] = []
    const logger: Logger = createLogger('warn', { write: (line: string) => warnings.push(JSON.parse(line)) })
    const delivered: string[] = []
    const source = createKafkaSource({
      kafka,
      topic,
      deadLetterTopic: dlq,
      groupId,
      fromBeginning: true,
      isAgentRunSpan: isGeneratedAgentSpan,
      settleMs: 500,
      tickMs: 50,
      commitIntervalMs: 200,
      logger,
      ...deliverTraces(async (trace) => {
        delivered.push(...trace.agentSpanIds)
      }),
    })
    await source.start()
    try {
      await until(
        () => delivered.length >= traffic.runs.length,
        60_000,
        () => 'good runs delivered',
      )
      // The bad records' offsets move on: the group commits the end of the topic.
      await untilFullyCommitted(kafka, groupId, topic, 'offsets committed past the poison')
    } finally {
      await source.stop()
    }
    expect(delivered.sort()).toEqual(traffic.runs.map((r) => r.agentSpanId).sort())
    expect(source.stats()).toMatchObject({ deadLetters: 3, emptyRecords: 1, records: messages.length })

    const dead = await readTopic(kafka, dlq, 3)
    expect(dead.map((r) => r.key).sort()).toEqual(poison.map((p) => p.key).sort())
    for (const record of dead) {
      const original = poison.find((p) => p.key === record.key)!
      expect(record.value).toEqual(original.value)
      expect(record.headers[DeadLetterHeader.error]).toMatch(/./)
      expect(record.headers[DeadLetterHeader.topic]).toBe(topic)
      expect(record.headers[DeadLetterHeader.partition]).toBe('0')
      expect(Number(record.headers[DeadLetterHeader.offset])).toBe(messages.indexOf(original))
    }
    const codes = Object.fromEntries(dead.map((r) => [r.key, r.headers[DeadLetterHeader.errorCode]]))
    expect(codes.truncated).toBe('truncated')
    expect(codes.garbage).toMatch(/^(invalid_varint|truncated|invalid_tag|unsupported_wire_type)$/)

    // Logged once per error code, with a sample of the payload; not once per record.
    const dlqWarnings = warnings.filter((w) => w.level === 40 && w.msg.includes('dead-letter'))
    expect(dlqWarnings.length).toBe(new Set(Object.values(codes)).size)
    expect(dlqWarnings[0]).toHaveProperty('sample')
  })
})
