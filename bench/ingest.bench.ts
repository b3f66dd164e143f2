/**
 * Ingest benchmark on the real local broker (`bash scripts/kafka-start.sh`): spans per second
 * through consume + decode + assemble (tracescore's span source, downstream a no-op) against a bare
 * kafkajs consumer group that only reads the same records (the baseline, target ratio >= 0.7).
 * Records are what the Collector's Kafka exporter writes: multi-trace OTLP protobuf batches of 50
 * spans, null keys. Rounds alternate subject and baseline, each with a fresh consumer group, the
 * best round of each kept. Run with `npx tsx bench/ingest.bench.ts`; `run()` returns the rows.
 */
import { decodeOtlpTraces } from '../src/ingest/decode/index.ts'
import { createKafkaSource } from '../src/ingest/kafka-source.ts'
import { OffsetTracker, type RecordRef } from '../src/ingest/offset-tracker.ts'
import {
  chunks,
  encodeOtlpProto,
  generateAgentTraffic,
  isGeneratedAgentSpan,
} from '../src/ingest/testing/agent-traffic.ts'
import { createTopic, deleteTopics, testKafka, uniqueName } from '../src/ingest/testing/broker.ts'
import { TraceAssembler } from '../src/ingest/trace-assembler.ts'

/** One benchmark result. */
export interface IngestBenchRow {
  case: string
  spans: number
  records: number
  payloadBytes: number
  /** Wall-clock rates: what a user sees, but shared CPUs (the broker, other processes) add noise. */
  subjectSpansPerSec: number
  baselineSpansPerSec: number
  /** subject / baseline, wall clock (target >= 0.7). */
  ratio: number
  /** Rates per CPU second of this process (user + system): robust to a loaded machine. */
  subjectSpansPerCpuSec: number
  baselineSpansPerCpuSec: number
  /** subject / baseline, per CPU second. */
  cpuRatio: number
  /** The decoder alone on the same payloads (no Kafka), spans per CPU second. */
  decodeOnlySpansPerCpuSec: number
  /**
   * Decode + assemble + offset tracking on the same payloads without Kafka (what the source does
   * per record, traces settling as in the Kafka rounds), spans per CPU second: the source's own
   * cost, including the GC of spans kept until their trace settles.
   */
  decodeAssembleSpansPerCpuSec: number
  /**
   * The best per-CPU ratio one thread could reach with this decoder if assembling cost nothing:
   * baseline CPU / (baseline CPU + decode CPU).
   */
  cpuRatioBound: number
}

/** Wall and CPU seconds of one round. */
interface Timing {
  wall: number
  cpu: number
}

/** Times `done` becoming true (polled every 5 ms) in wall and process CPU seconds. */
async function time(done: () => boolean): Promise<Timing> {
  const wall0 = process.hrtime.bigint()
  const cpu0 = process.cpuUsage()
  const deadline = Date.now() + 300_000
  while (!done()) {
    if (Date.now() > deadline) throw new Error('benchmark round timed out')
    await new Promise((r) => setTimeout(r, 5))
  }
  const cpu = process.cpuUsage(cpu0)
  return { wall: Number(process.hrtime.bigint() - wall0) / 1e9, cpu: (cpu.user + cpu.system) / 1e6 }
}

const kafka = testKafka('tracescore-bench')

/** Produces `runs` agent runs (5 spans each) in batches of `spansPerRecord`; returns counts. */
async function prepare(topic: string, runs: number, spansPerRecord: number) {
  await createTopic(kafka, topic, 2)
  const producer = kafka.producer()
  await producer.connect()
  let records = 0
  let spans = 0
  let payloadBytes = 0
  const payloads: Buffer[] = []
  for (let seed = 0; seed < runs / 1000; seed++) {
    const traffic = generateAgentTraffic({ runs: 1000, seed: seed + 1 })
    const messages = chunks(traffic.spans, spansPerRecord).map((batch) => ({
      key: null,
      value: encodeOtlpProto(batch),
    }))
    for (const part of chunks(messages, 20)) await producer.send({ topic, messages: part, acks: -1 })
    records += messages.length
    spans += traffic.spans.length
    payloadBytes += messages.reduce((n, m) => n + m.value.length, 0)
    payloads.push(...messages.map((m) => m.value))
  }
  await producer.disconnect()
  return { records, spans, payloadBytes, payloads }
}

/**
 * CPU seconds of what the source does per record, without Kafka: decode, `assembler.add`, offset
 * holds, and ready traces taken and finished. The clock moves 5 ms per 20 records, about the pace
 * of the Kafka rounds, so spans stay buffered for the same 200 ms settle period.
 */
function decodeAndAssemble(payloads: Buffer[]): number {
  let clock = 0
  const assembler = new TraceAssembler<RecordRef>({
    isAgentRunSpan: isGeneratedAgentSpan,
    now: () => clock,
    settleMs: 200,
    maxBufferedSpans: 1_000_000,
  })
  const tracker = new OffsetTracker()
  const finish = () => {
    for (const trace of assembler.takeReady()) for (const ref of trace.recordRefs) tracker.release(ref)
  }
  const cpu0 = process.cpuUsage()
  for (let i = 0; i < payloads.length; i++) {
    const ref = tracker.open('bench', i % 2, String(i >> 1))
    const payload = payloads[i]!
    const { traces } = assembler.add(decodeOtlpTraces(payload, 'otlp_proto'), ref, payload.length)
    tracker.hold(ref, traces)
    tracker.release(ref)
    if (i % 20 === 19) {
      clock += 5
      finish()
    }
  }
  clock += 1_000
  finish()
  const cpu = process.cpuUsage(cpu0)
  return (cpu.user + cpu.system) / 1e6
}

/** A bare kafkajs consumer group reading every record of the topic (same fetch settings as the source). */
async function baseline(topic: string, records: number): Promise<Timing> {
  const consumer = kafka.consumer({ groupId: uniqueName('bench-bare'), maxWaitTimeInMs: 500 })
  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  let read = 0
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      read += batch.messages.length
    },
  })
  const timing = await time(() => read >= records)
  await consumer.disconnect()
  return timing
}

/** tracescore's span source reading, decoding and assembling every record (downstream a no-op). */
async function subject(topic: string, records: number): Promise<Timing> {
  const source = createKafkaSource({
    kafka,
    topic,
    groupId: uniqueName('bench-source'),
    fromBeginning: true,
    deadLetterTopic: false,
    isAgentRunSpan: isGeneratedAgentSpan,
    settleMs: 200,
    maxBufferedSpans: 1_000_000,
    process: async () => undefined,
    targets: [],
  })
  await source.start()
  const timing = await time(() => source.stats().records >= records)
  await source.stop()
  return timing
}

/** Runs the benchmark and returns its rows. */
export async function run(options: { runs?: number; rounds?: number } = {}): Promise<IngestBenchRow[]> {
  const runs = options.runs ?? 40_000
  const rounds = options.rounds ?? 5
  const topic = uniqueName('bench-ingest')
  const { records, spans, payloadBytes, payloads } = await prepare(topic, runs, 50)
  let decodeCpu = Infinity
  let decodeAssembleCpu = Infinity
  for (let round = 0; round < rounds; round++) {
    const cpu0 = process.cpuUsage()
    for (const payload of payloads) decodeOtlpTraces(payload, 'otlp_proto')
    const cpu = process.cpuUsage(cpu0)
    decodeCpu = Math.min(decodeCpu, (cpu.user + cpu.system) / 1e6)
    decodeAssembleCpu = Math.min(decodeAssembleCpu, decodeAndAssemble(payloads))
  }
  const best = { subject: { wall: Infinity, cpu: Infinity }, baseline: { wall: Infinity, cpu: Infinity } }
  try {
    for (let round = 0; round < rounds; round++) {
      const b = await baseline(topic, records)
      const s = await subject(topic, records)
      best.baseline = { wall: Math.min(best.baseline.wall, b.wall), cpu: Math.min(best.baseline.cpu, b.cpu) }
      best.subject = { wall: Math.min(best.subject.wall, s.wall), cpu: Math.min(best.subject.cpu, s.cpu) }
    }
  } finally {
    await deleteTopics(kafka, [topic])
  }
  return [
    {
      case: 'otlp_proto, 50-span multi-trace records, 2 partitions',
      spans,
      records,
      payloadBytes,
      subjectSpansPerSec: spans / best.subject.wall,
      baselineSpansPerSec: spans / best.baseline.wall,
      ratio: best.baseline.wall / best.subject.wall,
      subjectSpansPerCpuSec: spans / best.subject.cpu,
      baselineSpansPerCpuSec: spans / best.baseline.cpu,
      cpuRatio: best.baseline.cpu / best.subject.cpu,
      decodeOnlySpansPerCpuSec: spans / decodeCpu,
      decodeAssembleSpansPerCpuSec: spans / decodeAssembleCpu,
      cpuRatioBound: best.baseline.cpu / (best.baseline.cpu + decodeCpu),
    },
  ]
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await run()
  for (const row of rows) {
    console.log(
      `${row.case}: ${row.spans} spans in ${row.records} records (${(row.payloadBytes / 1e6).toFixed(1)} MB); ` +
        `consume+decode+assemble ${Math.round(row.subjectSpansPerSec)} spans/s, ` +
        `bare kafkajs consumer ${Math.round(row.baselineSpansPerSec)} spans/s; ratio ${row.ratio.toFixed(2)} (target >= 0.7); ` +
        `per CPU second ${Math.round(row.subjectSpansPerCpuSec)} vs ${Math.round(row.baselineSpansPerCpuSec)}, ratio ${row.cpuRatio.toFixed(2)}; ` +
        `decoder alone ${Math.round(row.decodeOnlySpansPerCpuSec)} spans per CPU second, so one thread cannot beat a ratio of ${row.cpuRatioBound.toFixed(2)}; ` +
        `decode+assemble without Kafka ${Math.round(row.decodeAssembleSpansPerCpuSec)} spans per CPU second`,
    )
  }
}
