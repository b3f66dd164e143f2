import type { Message } from 'kafkajs'
import { afterAll, describe, expect, it } from 'vitest'
import { createKafkaSource, type IngestedTrace, type SpanSource } from '../../src/ingest/kafka-source.ts'
import { createSupervisedKafkajsConsumer } from '../../src/ingest/kafkajs-consumer.ts'
import { createTraceRepartitioner } from '../../src/ingest/repartition/trace-repartitioner.ts'
import {
  byTrace,
  chunks,
  encodeOtlpProto,
  type GeneratedRun,
  generateAgentTraffic,
  isGeneratedAgentSpan,
  shuffled,
} from '../../src/ingest/testing/agent-traffic.ts'
import { deliverTraces } from '../../src/ingest/testing/deliver-traces.ts'
import { createLogger } from '../../src/ops/logger.ts'
import { createTopic, readTopic, testKafka, uniqueName, untilFullyCommitted } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

const kafka = testKafka()
const producer = kafka.producer()
afterAll(() => producer.disconnect())

/** Exporter batches of 6 shuffled spans: each trace is spread over several records. */
const batchesOf = (runs: GeneratedRun[], seed: number) =>
  chunks(
    shuffled(
      runs.flatMap((r) => r.spans),
      seed,
    ),
    6,
  )

const instance = (
  name: string,
  topic: string,
  groupId: string,
  deliveries: { by: string; trace: IngestedTrace }[],
  encoding: 'otlp_proto' | 'otlp_json' = 'otlp_proto',
  settleMs = 1_000,
): SpanSource =>
  createKafkaSource({
    kafka: testKafka(name),
    topic,
    groupId,
    encoding,
    fromBeginning: true,
    isAgentRunSpan: isGeneratedAgentSpan,
    settleMs,
    tickMs: 50,
    commitIntervalMs: 200,
    sessionTimeout: 6_000,
    ...deliverTraces(async (trace) => {
      deliveries.push({ by: name, trace })
    }),
  })

/** Every run arrived with all its spans; a run delivered twice was in the stopped instance's hands. */
const checkDeliveries = (
  runs: GeneratedRun[],
  deliveries: { by: string; trace: IngestedTrace }[],
  stopped: string,
) => {
  const byRun = new Map<string, { by: string; trace: IngestedTrace }[]>()
  for (const d of deliveries) {
    for (const id of d.trace.agentSpanIds) byRun.set(id, [...(byRun.get(id) ?? []), d])
  }
  for (const run of runs) {
    const got = byRun.get(run.agentSpanId)
    expect(got, `run ${run.agentSpanId}`).toBeDefined()
    for (const d of got!) {
      // Trace affinity: one instance saw the whole trace, never a part of it.
      expect(d.trace.spans.map((s) => s.spanId).sort()).toEqual(
        run.spans.map((s) => s.spanContext().spanId).sort(),
      )
    }
    if (got!.length > 1) expect(got!.map((d) => d.by)).toContain(stopped)
  }
  return [...byRun.values()].filter((d) => d.length > 1).length
}

describe('scale-out: two instances in one consumer group on a 4-partition topic', () => {
  it('trace-keyed records: one instance stopped mid-stream loses no run', async () => {
    await producer.connect()
    const topic = uniqueName('ingest-scale')
    const groupId = uniqueName('group')
    await createTopic(kafka, topic, 4)
    const traffic = generateAgentTraffic({ runs: 80, seed: 41 })
    const deliveries: { by: string; trace: IngestedTrace }[] = []
    const a = instance('a', topic, groupId, deliveries)
    const b = instance('b', topic, groupId, deliveries)
    await Promise.all([a.start(), b.start()])
    const waves = chunks(traffic.runs, 20)
    const sendWave = async (runs: GeneratedRun[], seed: number) => {
      const messages: Message[] = []
      for (const batch of batchesOf(runs, seed)) {
        for (const [traceId, spans] of byTrace(batch))
          messages.push({ key: traceId, value: encodeOtlpProto(spans) })
      }
      await producer.send({ topic, messages, acks: -1 })
    }
    try {
      await sendWave(waves[0]!, 1)
      await sendWave(waves[1]!, 2)
      await until(
        () => deliveries.some((d) => d.by === 'a') && deliveries.length >= 20,
        60_000,
        () => 'both instances delivering',
      )
      await a.stop()
      await sendWave(waves[2]!, 3)
      await sendWave(waves[3]!, 4)
      await until(
        () => new Set(deliveries.flatMap((d) => d.trace.agentSpanIds)).size >= 80,
        60_000,
        () => 'every run delivered',
      )
      await untilFullyCommitted(kafka, groupId, topic, 'group committed everything')
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
    checkDeliveries(traffic.runs, deliveries, 'a')
    expect(deliveries.filter((d) => d.by === 'b').length).toBeGreaterThan(0)
  })

  it('null-key multi-trace batches through the repartition stage: each trace goes to one instance, none lost', async () => {
    await producer.connect()
    const raw = uniqueName('ingest-raw')
    const byTraceTopic = `${raw}.by_trace`
    await createTopic(kafka, raw, 4)
    await createTopic(kafka, byTraceTopic, 4)
    const repartitionGroup = uniqueName('repartition')
    const sourceGroup = uniqueName('group')
    const traffic = generateAgentTraffic({ runs: 60, plainTraces: 8, seed: 43 })
    const deliveries: { by: string; trace: IngestedTrace }[] = []
    const repartitioners = ['ra', 'rb'].map((clientId) =>
      createTraceRepartitioner({
        consumer: createSupervisedKafkajsConsumer({
          kafka: testKafka(clientId),
          groupId: repartitionGroup,
          fromBeginning: true,
          sessionTimeout: 6_000,
          logger: createLogger('warn'),
        }),
        producer,
        sourceTopic: raw,
        deadLetterTopic: `${raw}_dlq`,
      }),
    )
    // The spans of a trace reach the internal topic from several raw partitions, possibly across a
    // rebalance of the repartition group: the quiet period must cover that skew.
    const a = instance('a', byTraceTopic, sourceGroup, deliveries, 'otlp_json', 8_000)
    const b = instance('b', byTraceTopic, sourceGroup, deliveries, 'otlp_json', 8_000)
    await Promise.all([...repartitioners.map((r) => r.start()), a.start(), b.start()])
    const sendRaw = async (
      runs: GeneratedRun[],
      seed: number,
      extra: Parameters<typeof encodeOtlpProto>[0] = [],
    ) => {
      const spans = shuffled([...runs.flatMap((r) => r.spans), ...extra], seed)
      // Null keys: the producer spreads the multi-trace batches over the 4 partitions.
      await producer.send({
        topic: raw,
        messages: chunks(spans, 6).map((s) => ({ key: null, value: encodeOtlpProto(s) })),
        acks: -1,
      })
    }
    const halves = chunks(traffic.runs, 30)
    try {
      await sendRaw(halves[0]!, 5, traffic.plainTraces.flat())
      // A poison record among them: the repartition stage dead-letters it and moves on.
      await producer.send({
        topic: raw,
        acks: -1,
        messages: [{ key: null, value: Buffer.from([0x0a, 0xff, 0xff]) }],
      })
      await until(
        () => deliveries.some((d) => d.by === 'a'),
        60_000,
        () => 'some runs delivered by a',
      )
      await Promise.all([a.stop(), repartitioners[0]!.stop()])
      await sendRaw(halves[1]!, 6)
      await until(
        () => new Set(deliveries.flatMap((d) => d.trace.agentSpanIds)).size >= 60,
        60_000,
        () => 'every run delivered',
      )
      await untilFullyCommitted(kafka, repartitionGroup, raw, 'raw offsets committed')
      await untilFullyCommitted(kafka, sourceGroup, byTraceTopic, 'internal topic offsets committed')
    } finally {
      await Promise.all([a.stop(), b.stop(), ...repartitioners.map((r) => r.stop())])
    }
    checkDeliveries(traffic.runs, deliveries, 'a')
    const produced = repartitioners.reduce((n, r) => n + r.stats().traceRecords, 0)
    // At least once: a rebalance between the produce and the commit may dead-letter it twice.
    expect(repartitioners.reduce((n, r) => n + r.stats().deadLetters, 0)).toBeGreaterThanOrEqual(1)
    const [dead] = await readTopic(kafka, `${raw}_dlq`, 1)
    expect(dead!.headers['tracescore-error-code']).toBe('truncated')
    expect(produced).toBeGreaterThanOrEqual(traffic.runs.length + traffic.plainTraces.length)
  })
})
