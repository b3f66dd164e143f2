/**
 * Full-pipeline benchmark on the local broker, code scorers only:
 * - throughput: spans/s from a pre-filled topic through decode, assembly, transform, scoring and
 *   OTLP export to a local receiver, against a bare kafkajs consumer reading the same records in
 *   the same run (target ≥ 0.4×, issue 12; and ≥ 30,000 spans/s absolute);
 * - latency: from an agent run's record being produced to its score span arriving at the
 *   receiver, p50/p99, the configured settle time subtracted;
 * - backlog (issue 22): a pre-filled topic of mixed traffic with null keys over 8 partitions (one
 *   trace's spans on several partitions, as the Collector's exporter writes by default), consumed
 *   at the default settings: spans/s against a bare read, time paused on a full buffer, scores
 *   missing and late spans.
 * Rounds alternate the bare read, the pipeline with its OTLP export on the pipeline's thread (the
 * default), on its worker thread, and with a counting sink (`PIPELINE_BENCH_ROUNDS`, default 2; agent runs per
 * round `PIPELINE_BENCH_RUNS`, default 20,000; `PIPELINE_BENCH_BACKLOG=0` leaves out the backlog case;
 * `PIPELINE_BENCH_IN_FLIGHT` sets `assembly.maxInFlightTraces` of those pipelines).
 * Run alone with `npx tsx bench/pipeline.bench.ts` (starts the broker if none answers).
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { Kafka, Producer } from 'kafkajs'
import { pino } from 'pino'
import { resolveConfig } from '../src/config/index.ts'
import { createScorer, notScorable } from '../src/index.ts'
import { createPipeline } from '../src/pipeline.ts'
import type { Sink } from '../src/sink/index.ts'
import { type OtlpReceiver, startOtlpReceiver } from '../test/helpers/fault-otlp-receiver.ts'
import { makeRuns, produceRuns, type RunRecord, runKey } from '../test/helpers/fault-traffic.ts'
import { createTopic, testBrokers, testKafka, uniqueName } from '../test/helpers/kafka.ts'
import { mixedTraffic, type NullKeyedRecord, nullKeyedRecords } from '../test/helpers/mixed-traffic.ts'

/** One row of the pipeline benchmark. */
export interface PipelineBenchRow {
  measure: string
  value: string
  baseline: string
  ratio: string
  target: string
  met: string
}

const PARTITIONS = 4
/** Busy share of the pipeline's (main) thread in the last round, from first record to last score. */
let busy = 0
/** CPU µs of the last round (first record to last score): the pipeline's thread, the process without the receiver's thread. */
let cpuUs = { thread: 0, process: 0 }
/** Backpressure pauses logged by the pipelines of this process. */
let pauses = 0

/** The example config's two code scorers, written against the sources (no dist/ needed). */
export const codeScorers = {
  answered: {
    scorer: createScorer({ id: 'answered', description: 'final text answer', type: 'agent' })
      .preprocess(({ run }) => {
        const last = run.output.at(-1)
        return { text: (last?.content.content ?? '').trim() }
      })
      .generateScore(({ results }) => (results.preprocessStepResult.text.length > 0 ? 1 : 0)),
  },
  toolSuccess: {
    scorer: createScorer({ id: 'tool-success', description: 'tool calls that succeeded', type: 'agent' })
      .preprocess(({ run }) => {
        const calls = run.output.flatMap((m) =>
          m.content.parts.flatMap((p) => (p.type === 'tool-invocation' ? [p.toolInvocation] : [])),
        )
        return { calls: calls.length, failed: calls.filter((c) => c.state === 'output-error').length }
      })
      .generateScore(({ results }) => {
        const { calls, failed } = results.preprocessStepResult
        return calls === 0 ? notScorable('no tool call') : (calls - failed) / calls
      }),
  },
}

/** Starts the local broker when none answers (idempotent script). */
export function ensureBroker(): void {
  const root = fileURLToPath(new URL('../', import.meta.url))
  // The broker the benchmark talks to (`KAFKA_BROKERS`), not the script's default port.
  const port = process.env.KAFKA_PORT ?? testBrokers()[0]!.split(':').pop()!
  const started = spawnSync('bash', ['scripts/kafka-start.sh'], {
    cwd: root,
    stdio: ['ignore', 2, 2],
    env: { ...process.env, KAFKA_PORT: port },
  })
  if (started.status !== 0) throw new Error('the local Kafka broker did not start')
}

/** Reads every record of the topic with a bare kafkajs consumer; ms from first to last record. */
async function bareRead(kafka: Kafka, topic: string, records: number): Promise<number> {
  const consumer = kafka.consumer({ groupId: uniqueName('bench-bare') })
  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  let seen = 0
  let first = 0
  let last = 0
  let spansSeen = 0
  await new Promise<void>((resolve) => {
    void consumer.run({
      eachBatch: async ({ batch }) => {
        if (first === 0) first = performance.now()
        for (const m of batch.messages) spansSeen += m.value ? 1 : 0
        seen += batch.messages.length
        if (seen >= records) {
          last = performance.now()
          resolve()
        }
      },
    })
  })
  await consumer.disconnect()
  if (spansSeen !== records) throw new Error('bare read: records without values')
  return last - first
}

/** How the benchmark's pipeline delivers scores: OTLP export on the pipeline's thread (the default) or on its worker thread, or counted. */
type SinkMode = 'otlp' | 'otlp-worker' | 'count'

function pipelineFor(
  topic: string,
  receiver: Pick<OtlpReceiver, 'url'>,
  settleMs: number,
  fromBeginning: boolean,
  mode: SinkMode = 'otlp',
  onCount?: (records: number) => void,
) {
  const config = resolveConfig({
    kafka: {
      brokers: testBrokers(),
      topic,
      groupId: uniqueName('bench-pipeline'),
      fromBeginning,
      deadLetterTopic: `${topic}-dlq`,
    },
    assembly: {
      settleMs,
      ...(process.env.PIPELINE_BENCH_IN_FLIGHT
        ? { maxInFlightTraces: Number(process.env.PIPELINE_BENCH_IN_FLIGHT) }
        : {}),
    },
    scorers: codeScorers,
    sinks: {
      otlp:
        mode === 'count'
          ? false
          : {
              endpoint: receiver.url,
              protocol: 'http/protobuf',
              exportThread: mode === 'otlp-worker' ? 'worker' : 'main',
            },
    },
    metrics: { port: 0 },
  })
  // The diagnostic variants replace the configured OTLP sink.
  const extraSinks: Sink[] =
    mode === 'count'
      ? [{ name: 'count', deliver: async (r) => onCount?.(r.length), close: async () => {} }]
      : []
  // Counts the source's backpressure pauses (each one can stall kafkajs's fetch loop).
  const logger = pino(
    { level: 'info' },
    {
      write: (line: string) => {
        if (line.includes('ingest paused')) pauses++
      },
    },
  )
  return createPipeline(config, { logger, extraSinks })
}

/**
 * The OTLP receiver in a worker thread (`otlp-receiver-worker.ts`): a backend off the pipeline's
 * thread; `done` resolves once `expected` distinct score spans (or, with `count: 'spans'`, spans
 * of any kind) arrived.
 */
export async function receiverInWorker(expected: number, count: 'scores' | 'spans' = 'scores') {
  const worker = new Worker(new URL('./otlp-receiver-worker.ts', import.meta.url), {
    workerData: { expected, count },
  })
  let scores = 0
  let arrivals = 0
  let onDone = () => {}
  const done = new Promise<void>((resolve) => {
    onDone = resolve
  })
  let startCpuUs = 0
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('error', reject)
    worker.on(
      'message',
      (message: { url?: string; cpuUs?: number; scores?: number; arrivals?: number; done?: boolean }) => {
        if (message.url) {
          startCpuUs = message.cpuUs ?? 0
          resolve(message.url)
        }
        if (message.scores !== undefined) scores = message.scores
        if (message.arrivals !== undefined) arrivals = message.arrivals
        if (message.done) onDone()
      },
    )
  })
  return {
    url,
    done,
    scores: () => scores,
    /** Spans arrived, of any kind, as of the last message from the worker. */
    arrivals: () => arrivals,
    /** Asks the worker for its counts; resolves once they are in `scores()` and `arrivals()`. */
    async refresh() {
      const answered = new Promise((resolve) =>
        worker.once('message', (m: { arrivals?: number }) => m.arrivals !== undefined && resolve(m)),
      )
      worker.postMessage('counts')
      await answered
    },
    /** Stops the receiver; its thread's CPU µs since it was listening. */
    async close(): Promise<number> {
      const closed = new Promise<number>((resolve) =>
        worker.on('message', (m: { closed?: boolean; cpuUs?: number }) => m.closed && resolve(m.cpuUs ?? 0)),
      )
      worker.postMessage('close')
      const receiverCpuUs = await closed
      await worker.terminate()
      return receiverCpuUs - startCpuUs
    },
  }
}

/**
 * The pipeline over the pre-filled topic; ms from its first consumed record to the last score.
 * With OTLP export the scores go to a receiver in a worker thread (its decoding is the backend's
 * work); with the counting sink they are counted on the pipeline's thread.
 */
async function pipelineRead(
  topic: string,
  runs: RunRecord[],
  settleMs: number,
  mode: SinkMode = 'otlp',
): Promise<number> {
  const expected = runs.length * 2
  const receiver = await receiverInWorker(expected)
  let counted = 0
  let last = 0
  let finish = () => {}
  const pipeline = pipelineFor(topic, receiver, settleMs, true, mode, (n) => {
    counted += n
    if (counted >= expected) {
      last = performance.now()
      finish()
    }
  })
  let first = 0
  let threadCpu0 = process.threadCpuUsage()
  let processCpu0 = process.cpuUsage()
  const poll = setInterval(() => {
    if (first === 0 && pipeline.stats().records > 0) {
      first = performance.now()
      threadCpu0 = process.threadCpuUsage()
      processCpu0 = process.cpuUsage()
    }
  }, 5)
  const done = new Promise<void>((resolve) => {
    finish = resolve
    void receiver.done.then(() => {
      last = performance.now()
      resolve()
    })
  })
  await pipeline.start()
  const elu0 = performance.eventLoopUtilization()
  await Promise.race([
    done,
    new Promise((_, reject) =>
      setTimeout(
        () => reject(new Error(`pipeline bench: ${Math.max(counted, receiver.scores())}/${expected} scores`)),
        300_000,
      ).unref(),
    ),
  ])
  const threadCpu = process.threadCpuUsage(threadCpu0)
  const processCpu = process.cpuUsage(processCpu0)
  busy = performance.eventLoopUtilization(elu0).utilization
  clearInterval(poll)
  await pipeline.stop()
  const receiverCpuUs = await receiver.close()
  cpuUs = {
    thread: threadCpu.user + threadCpu.system,
    process: processCpu.user + processCpu.system - receiverCpuUs,
  }
  return last - first
}

/** Produces runs one by one while the pipeline runs; latency of each run's first score span. */
async function latency(
  kafka: Kafka,
  runs: RunRecord[],
  ratePerSec: number,
  settleMs: number,
): Promise<number[]> {
  const topic = uniqueName('bench-latency')
  await createTopic(kafka, topic, PARTITIONS)
  const receiver = await startOtlpReceiver()
  const sentAt = new Map<string, number>()
  const latencies: number[] = []
  receiver.onScore = (score) => {
    const key = `${score.traceId}/${score.agentSpanId}`
    const at = sentAt.get(key)
    if (at !== undefined) {
      sentAt.delete(key)
      latencies.push(performance.timeOrigin + performance.now() - at - settleMs)
    }
  }
  const pipeline = pipelineFor(topic, receiver, settleMs, true)
  await pipeline.start()
  await new Promise((r) => setTimeout(r, 3_000)) // group joined and fetching
  const producer = kafka.producer()
  await producer.connect()
  const started = Date.now()
  for (let i = 0; i < runs.length; i++) {
    const due = started + (i * 1000) / ratePerSec
    const wait = due - Date.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    const run = runs[i]!
    sentAt.set(runKey(run), performance.timeOrigin + performance.now())
    await producer.send({
      topic,
      acks: -1,
      messages: [{ key: run.traceId, value: run.value, partition: i % PARTITIONS }],
    })
  }
  const deadline = Date.now() + 60_000
  while (latencies.length < runs.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
  await producer.disconnect()
  await pipeline.stop()
  await receiver.close()
  if (latencies.length < runs.length) throw new Error(`latency: ${latencies.length}/${runs.length} scored`)
  return latencies.sort((a, b) => a - b)
}

/** What one consumption of the backlog gave. */
interface BacklogRound {
  ms: number
  pausedMs: number
  scores: number
  lateSpans: number
  /** Most spans (and their bytes) buffered at once. */
  peakSpans: number
  peakBytes: number
}

/**
 * The pipeline at the default settings (only the topic, the scorers and a counting sink set) over
 * the pre-filled backlog, until every record was read and nothing is buffered or in flight:
 * ms from the first record to the end, ms spent paused by backpressure, scores, late spans.
 */
async function backlogRead(topic: string, records: number): Promise<BacklogRound> {
  let scores = 0
  let pausedMs = 0
  let pausedAt: number | undefined
  const config = resolveConfig({
    kafka: { brokers: testBrokers(), topic, groupId: uniqueName('bench-backlog'), fromBeginning: true },
    scorers: codeScorers,
    sinks: { otlp: false },
    metrics: { port: 0 },
  })
  const logger = pino(
    { level: 'info' },
    {
      write: (line: string) => {
        if (line.includes('ingest paused')) pausedAt = performance.now()
        else if (line.includes('ingest resumed') && pausedAt !== undefined) {
          pausedMs += performance.now() - pausedAt
          pausedAt = undefined
        }
      },
    },
  )
  const count: Sink = {
    name: 'count',
    deliver: async (r) => {
      scores += r.length
    },
    close: async () => {},
  }
  const pipeline = createPipeline(config, { logger, extraSinks: [count] })
  let first = 0
  let last = 0
  let peakSpans = 0
  let peakBytes = 0
  await pipeline.start()
  const deadline = Date.now() + 600_000
  for (;;) {
    const s = pipeline.stats()
    peakSpans = Math.max(peakSpans, s.bufferedSpans)
    peakBytes = Math.max(peakBytes, s.bufferedBytes)
    if (first === 0 && s.records > 0) first = performance.now()
    if (s.records >= records && s.bufferedSpans === 0 && s.queuedTraces === 0 && s.inFlightTraces === 0) {
      last = performance.now()
      break
    }
    if (Date.now() > deadline) throw new Error(`backlog bench: ${JSON.stringify(s)}`)
    await new Promise((r) => setTimeout(r, 5))
  }
  if (pausedAt !== undefined) pausedMs += last - pausedAt
  const { lateSpans } = pipeline.stats()
  await pipeline.stop()
  return { ms: last - first, pausedMs, scores, lateSpans, peakSpans, peakBytes }
}

/** Record times of a pre-filled backlog: 50-span records 2.5 ms apart, 20,000 spans/s of live traffic. */
export const RECORD_INTERVAL_MS = 2.5

/**
 * Produces null-keyed records in requests of 100, as a backlog of live traffic: record `i` of
 * them stamped `firstTime + (from + i) * RECORD_INTERVAL_MS`.
 */
export async function produceAtLiveTimes(
  producer: Producer,
  topic: string,
  records: readonly NullKeyedRecord[],
  firstTime: number,
  from = 0,
): Promise<void> {
  for (let i = 0; i < records.length; i += 100) {
    const messages = records.slice(i, i + 100).map((r, k) => ({
      key: null,
      value: r.value,
      partition: r.partition,
      timestamp: String(Math.round(firstTime + (from + i + k) * RECORD_INTERVAL_MS)),
    }))
    await producer.send({ topic, acks: -1, messages })
  }
}

/**
 * The backlog case: `rounds` rounds of mixed traffic (100 agent runs among 900 HTTP/DB traces,
 * 3,200 spans each) as null-keyed records of 50 spans over 8 partitions, written with record
 * times 2.5 ms apart (20,000 spans/s of live traffic), read `repeats` times at the default
 * settings (best time kept, pauses and misses of every read shown), against a bare read.
 */
export async function runBacklog(rounds = 100, repeats = 2): Promise<PipelineBenchRow[]> {
  ensureBroker()
  const kafka = testKafka('bench-backlog')
  const spans = Array.from({ length: rounds }, (_, i) => mixedTraffic(1_001 + i)).flat()
  const records = nullKeyedRecords(spans, { partitions: 8, spansPerRecord: 50 })
  const expected = rounds * 100 * 2 // two code scorers per agent run
  const topic = uniqueName('bench-backlog')
  await createTopic(kafka, topic, 8)
  const producer = kafka.producer()
  await producer.connect()
  await produceAtLiveTimes(producer, topic, records, Date.now() - records.length * RECORD_INTERVAL_MS)
  await producer.disconnect()
  let bareMs = Number.POSITIVE_INFINITY
  const reads: BacklogRound[] = []
  for (let r = 0; r < repeats; r++) {
    bareMs = Math.min(bareMs, await bareRead(kafka, topic, records.length))
    reads.push(await backlogRead(topic, records.length))
  }
  const best = Math.min(...reads.map((r) => r.ms))
  const rate = (spans.length * 1000) / best
  const bareRate = (spans.length * 1000) / bareMs
  const seconds = (ms: number) => (ms / 1000).toFixed(1)
  // The default caps of this process (before issue 22: 200,000 spans, 256 MiB), paused at 80%.
  const { maxBufferedSpans, maxBufferedBytes } = resolveConfig({}, {}).assembly
  const pauseAtSpans = Math.floor(maxBufferedSpans * 0.8)
  const pauseAtBytes = Math.floor(maxBufferedBytes * 0.8)
  const each = (f: (r: BacklogRound) => string) => reads.map(f).join(' / ')
  const row = (measure: string, value: string, baseline = '-', ratio = '-'): PipelineBenchRow => ({
    measure,
    value,
    baseline,
    ratio,
    target: '-',
    met: '-',
  })
  return [
    row(
      `backlog at default settings: spans/s (${fmt(spans.length)} spans, ${fmt(rounds * 100)} agent runs among ${fmt(rounds * 900)} HTTP/DB traces, null keys over 8 partitions, best of ${repeats})`,
      fmt(rate),
      `bare kafkajs read ${fmt(bareRate)}`,
      `${(rate / bareRate).toFixed(2)}x`,
    ),
    row(
      'backlog: s paused on a full buffer of s reading, each read',
      each((r) => `${seconds(r.pausedMs)} of ${seconds(r.ms)}`),
    ),
    row(
      `backlog: most spans buffered at once (MB), each read; reading pauses at ${fmt(pauseAtSpans)} spans or ${fmt(pauseAtBytes / 2 ** 20)} MB`,
      each((r) => `${fmt(r.peakSpans)} (${fmt(r.peakBytes / 2 ** 20)})`),
    ),
    row(
      `backlog: scores missing of ${fmt(expected)}, each read`,
      each((r) => fmt(expected - r.scores)),
    ),
    row(
      'backlog: late spans (arrived after their trace was released), each read',
      each((r) => fmt(r.lateSpans)),
    ),
  ]
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!
const fmt = (n: number) => Math.round(n).toLocaleString('en-US')

/** One sink mode's rounds: best ms, and per round the ingest pauses, busy share and CPU µs per span (thread / process). */
interface ModeRounds {
  ms: number
  pauses: number[]
  busy: string[]
  cpu: string[]
}

const sinkModes = ['otlp', 'otlp-worker', 'count'] as const

/** `rounds` rounds of the bare read, then the pipeline in each sink mode, over the pre-filled topic. */
async function alternatedRounds(kafka: Kafka, topic: string, runs: RunRecord[], rounds: number) {
  const spans = runs.reduce((n, r) => n + r.spans, 0)
  let bareMs = Number.POSITIVE_INFINITY
  const of = Object.fromEntries(
    sinkModes.map((m) => [m, { ms: Number.POSITIVE_INFINITY, pauses: [], busy: [], cpu: [] }]),
  ) as unknown as Record<SinkMode, ModeRounds>
  const pct100 = (share: number) => `${Math.round(share * 100)}%`
  const perSpan = (us: number) => (us / spans).toFixed(1)
  for (let r = 0; r < rounds; r++) {
    bareMs = Math.min(bareMs, await bareRead(kafka, topic, runs.length))
    for (const mode of sinkModes) {
      const before = pauses
      const m = of[mode]
      m.ms = Math.min(m.ms, await pipelineRead(topic, runs, 100, mode))
      m.pauses.push(pauses - before)
      m.busy.push(pct100(busy))
      m.cpu.push(`${perSpan(cpuUs.thread)} / ${perSpan(cpuUs.process)}`)
    }
  }
  return { bareMs, of }
}

/** Runs the benchmark: `runs` agent runs of 5 spans each, best of `rounds` for each side. */
export async function run(
  options: { runs?: number; rounds?: number; latencyRuns?: number } = {},
): Promise<PipelineBenchRow[]> {
  ensureBroker()
  const runsN = options.runs ?? Number(process.env.PIPELINE_BENCH_RUNS ?? 20_000)
  const rounds = options.rounds ?? Number(process.env.PIPELINE_BENCH_ROUNDS ?? 2)
  const kafka = testKafka('bench-pipeline')
  const runs = makeRuns(runsN, 3)
  const spans = runs.reduce((n, r) => n + r.spans, 0)
  const topic = uniqueName('bench-pipeline')
  await createTopic(kafka, topic, PARTITIONS)
  const producer = kafka.producer()
  await producer.connect()
  await produceRuns(producer, topic, runs, { partitions: PARTITIONS, batch: 500 })
  await producer.disconnect()

  const { bareMs, of } = await alternatedRounds(kafka, topic, runs, rounds)
  const pipeMs = of.otlp.ms
  const noExportMs = of.count.ms
  const pausesOf = { pipe: of.otlp.pauses, noExport: of.count.pauses }
  const busyOf = { pipe: of.otlp.busy, noExport: of.count.busy }
  const bareRate = (spans * 1000) / bareMs
  const pipeRate = (spans * 1000) / pipeMs
  const noExportRate = (spans * 1000) / noExportMs
  const settleMs = 200
  const lat = await latency(kafka, makeRuns(options.latencyRuns ?? 1_000, 5), 100, settleMs)
  const ratio = pipeRate / bareRate
  const backlog = process.env.PIPELINE_BENCH_BACKLOG === '0' ? [] : await runBacklog()
  return [
    {
      measure: `pipeline spans/s (${fmt(spans)} spans, ${fmt(runs.length)} runs, 2 code scorers, OTLP export; ingest pauses per round ${pausesOf.pipe.join('/')}, pipeline thread busy ${busyOf.pipe.join('/')})`,
      value: fmt(pipeRate),
      baseline: `bare kafkajs read ${fmt(bareRate)}`,
      ratio: `${ratio.toFixed(2)}x`,
      target: '>= 0.4x',
      met: ratio >= 0.4 ? 'yes' : 'NO',
    },
    {
      measure: `same pipeline, OTLP export on its worker thread (sinks.otlp.exportThread: worker; ingest pauses per round ${of['otlp-worker'].pauses.join('/')}, busy ${of['otlp-worker'].busy.join('/')})`,
      value: fmt((spans * 1000) / of['otlp-worker'].ms),
      baseline: `bare kafkajs read ${fmt(bareRate)}`,
      ratio: `${((spans * 1000) / of['otlp-worker'].ms / bareRate).toFixed(2)}x`,
      target: '-',
      met: '-',
    },
    ...sinkModes.map((mode) => ({
      measure: `CPU µs per span, pipeline thread / process without the receiver's thread, each round: ${{ otlp: "OTLP export on the pipeline's thread", 'otlp-worker': 'OTLP export on its worker thread', count: 'counting sink' }[mode]}`,
      value: of[mode].cpu.join('; '),
      baseline: '-',
      ratio: '-',
      target: '-',
      met: '-',
    })),
    {
      measure: `diagnostic: same pipeline, OTLP export replaced by a counting sink (ingest pauses per round ${pausesOf.noExport.join('/')}, busy ${busyOf.noExport.join('/')})`,
      value: fmt(noExportRate),
      baseline: `bare kafkajs read ${fmt(bareRate)}`,
      ratio: `${(noExportRate / bareRate).toFixed(2)}x`,
      target: '-',
      met: '-',
    },
    {
      measure: 'pipeline spans/s, absolute',
      value: fmt(pipeRate),
      baseline: '-',
      ratio: '-',
      target: '>= 30,000',
      met: pipeRate >= 30_000 ? 'yes' : 'NO',
    },
    {
      measure: `latency produce -> score span, p50 (${lat.length} runs at 100/s, settle ${settleMs} ms excluded)`,
      value: `${fmt(pct(lat, 0.5))} ms`,
      baseline: '-',
      ratio: '-',
      target: '-',
      met: '-',
    },
    {
      measure: 'latency produce -> score span, p99',
      value: `${fmt(pct(lat, 0.99))} ms`,
      baseline: '-',
      ratio: '-',
      target: '-',
      met: '-',
    },
    ...backlog,
  ]
}

if (import.meta.url === `file://${process.argv[1]}`)
  console.table(process.argv.includes('backlog') ? await runBacklog() : await run())
