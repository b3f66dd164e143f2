import { CompressionTypes, type Message } from 'kafkajs'
import { afterAll, describe, expect, it } from 'vitest'
import { registerCompressionCodecs } from '../../src/ingest/codecs.ts'
import { createKafkaSource, type IngestedTrace } from '../../src/ingest/kafka-source.ts'
import {
  byTrace,
  chunks,
  encodeOtlpJson,
  encodeOtlpProto,
  generateAgentTraffic,
  isGeneratedAgentSpan,
  shuffled,
} from '../../src/ingest/testing/agent-traffic.ts'
import { deliverTraces } from '../../src/ingest/testing/deliver-traces.ts'
import { createTopic, testKafka, uniqueName, untilFullyCommitted } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

registerCompressionCodecs() // this test's producer writes snappy/lz4/zstd as the Collector can
const kafka = testKafka()
const producer = kafka.producer()
afterAll(() => producer.disconnect())

interface Variant {
  name: string
  /** `mixed`: records alternate protobuf and OTLP/JSON, read with the default encoding (`auto`). */
  encoding: 'otlp_proto' | 'otlp_json' | 'mixed'
  keyed: boolean
  compression: CompressionTypes
}

const variants: Variant[] = [
  {
    name: 'otlp_proto, multi-trace batches, null keys',
    encoding: 'otlp_proto',
    keyed: false,
    compression: CompressionTypes.None,
  },
  {
    name: 'otlp_proto, partition_traces_by_id keys',
    encoding: 'otlp_proto',
    keyed: true,
    compression: CompressionTypes.None,
  },
  {
    name: 'otlp_json, multi-trace batches, null keys',
    encoding: 'otlp_json',
    keyed: false,
    compression: CompressionTypes.None,
  },
  {
    name: 'otlp_json, partition_traces_by_id keys',
    encoding: 'otlp_json',
    keyed: true,
    compression: CompressionTypes.None,
  },
  {
    name: 'otlp_proto, gzip-compressed batches',
    encoding: 'otlp_proto',
    keyed: false,
    compression: CompressionTypes.GZIP,
  },
  { name: 'otlp_proto, snappy', encoding: 'otlp_proto', keyed: false, compression: CompressionTypes.Snappy },
  {
    name: 'otlp_proto by trace id, lz4',
    encoding: 'otlp_proto',
    keyed: true,
    compression: CompressionTypes.LZ4,
  },
  { name: 'otlp_json, zstd', encoding: 'otlp_json', keyed: false, compression: CompressionTypes.ZSTD },
  {
    name: 'protobuf and OTLP/JSON records on one topic, default encoding',
    encoding: 'mixed',
    keyed: true,
    compression: CompressionTypes.None,
  },
]

/**
 * The records the Collector's Kafka exporter writes for `spans`: exported in shuffled batches of
 * 7 spans (so every trace is spread over several records, out of order); with `keyed` each batch
 * is split per trace and keyed by the 32-hex trace id.
 */
const exporterRecords = (spans: Parameters<typeof encodeOtlpProto>[0], v: Variant): Message[] => {
  let n = 0
  const encode =
    v.encoding === 'mixed'
      ? (batch: Parameters<typeof encodeOtlpProto>[0]) => (n++ % 2 ? encodeOtlpJson : encodeOtlpProto)(batch)
      : v.encoding === 'otlp_json'
        ? encodeOtlpJson
        : encodeOtlpProto
  const messages: Message[] = []
  for (const batch of chunks(shuffled(spans, 7), 7)) {
    if (!v.keyed) messages.push({ key: null, value: encode(batch) })
    else
      for (const [traceId, traceSpans] of byTrace(batch))
        messages.push({ key: traceId, value: encode(traceSpans) })
  }
  return messages
}

describe('Kafka span source on the real broker', () => {
  it.each(variants)('delivers every agent run exactly once: $name', async (v) => {
    await producer.connect()
    const topic = uniqueName('ingest-delivery')
    const groupId = uniqueName('group')
    await createTopic(kafka, topic, 3)
    const traffic = generateAgentTraffic({ runs: 40, plainTraces: 6, seed: 11 })
    const messages = exporterRecords(traffic.spans, v)
    // Several records per send, as the exporter's producer batches them (compression applies per batch).
    for (const part of chunks(messages, 10))
      await producer.send({ topic, compression: v.compression, messages: part, acks: -1 })

    const deliveries: IngestedTrace[] = []
    const source = createKafkaSource({
      kafka,
      topic,
      groupId,
      ...(v.encoding === 'mixed' ? {} : { encoding: v.encoding }),
      fromBeginning: true,
      isAgentRunSpan: isGeneratedAgentSpan,
      settleMs: 1_000,
      tickMs: 50,
      commitIntervalMs: 200,
      ...deliverTraces(async (trace) => {
        deliveries.push(trace)
      }),
    })
    await source.start()
    try {
      await until(
        () => deliveries.length >= traffic.runs.length,
        60_000,
        () => 'all runs delivered',
      )
      await untilFullyCommitted(kafka, groupId, topic, 'offsets committed to the end')
    } finally {
      await source.stop()
    }

    const runIds = deliveries.flatMap((d) => d.agentSpanIds)
    expect(runIds.sort()).toEqual(traffic.runs.map((r) => r.agentSpanId).sort())
    for (const run of traffic.runs) {
      const delivered = deliveries.find((d) => d.traceId === run.traceId)!
      expect(delivered.incomplete).toBe(false)
      expect(delivered.spans.map((s) => s.spanId).sort()).toEqual(
        run.spans.map((s) => s.spanContext().spanId).sort(),
      )
    }
    const stats = source.stats()
    expect(stats.tracesWithoutRuns).toBe(traffic.plainTraces.length)
    expect(stats.spans).toBe(traffic.spans.length)
    expect(stats.records).toBe(messages.length)
    expect(stats.deadLetters).toBe(0)
    expect(stats.lateSpans).toBe(0)
  })
})
