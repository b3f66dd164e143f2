/**
 * LLM-judge benchmark: a scripted OpenAI-compatible judge (no model; a fixed latency L per
 * request, requests in flight counted in the server) and a judge concurrency limit C. Target:
 * scores/s ≥ 0.9 × C / L, and never more than C judge requests in flight.
 * - "pipeline": runs pre-filled on Kafka, through the whole pipeline to a local OTLP receiver;
 *   rate from the first score span received to the last.
 * - "scoring only": the same scorer over the same runs through `scoreTrace` with the limiter the
 *   configuration builds (no Kafka), all runs submitted at once.
 * - "open runs": a 2 s judge under a 50,000-run backlog; the source must pause and open runs and
 *   resident memory stay bounded (BENCH_JUDGE_ONLY_OPEN_RUNS=1 runs only this case).
 * Run alone with `npx tsx bench/judge.bench.ts`.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { resolveConfig } from '../src/config/index.ts'
import { createScorer } from '../src/index.ts'
import { decodeOtlpTraces } from '../src/ingest/decode/index.ts'
import { silentLogger } from '../src/ops/logger.ts'
import { createPipeline } from '../src/pipeline.ts'
import { scoreTrace } from '../src/score-trace.ts'
import { judgeFromConfig } from '../src/scoring/judge-from-config.ts'
import { remoteJudgeStats, startFaultJudge } from '../test/helpers/fault-judge.ts'
import { startOtlpReceiver } from '../test/helpers/fault-otlp-receiver.ts'
import { makeRuns, produceRuns, type RunRecord } from '../test/helpers/fault-traffic.ts'
import { createTopic, testBrokers, testKafka, uniqueName } from '../test/helpers/kafka.ts'
import { ensureBroker } from './pipeline.bench.ts'

/** One row of the judge benchmark. */
export interface JudgeBenchRow {
  path: string
  concurrency: number
  latencyMs: number
  runs: number
  scoresPerSec: number
  /** C / L, the ideal rate. */
  idealPerSec: number
  ratio: number
  maxInFlight: number
  /** CPU time of the tracescore process per score (the judge runs in another process). */
  cpuMsPerScore: number
  /** Mean request time the client saw: L plus this busy machine's delays. */
  observedLatencyMs: number
  /** scores/s ÷ (C / observed latency): how fully the C slots were kept busy. */
  busyRatio: number
  target: string
  met: string
}

/** The scripted judge in its own process (as a real provider would be), answering after `latencyMs`. */
async function startJudgeProcess(latencyMs: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_JUDGE_LATENCY_MS: String(latencyMs) },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const baseURL = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      const line = out.split('\n').find((l) => l.startsWith('http'))
      if (line) resolve(line.trim())
    })
    child.once('exit', (code) => reject(new Error(`judge process exited with ${code}`)))
  })
  return {
    baseURL,
    stats: () => remoteJudgeStats(baseURL),
    close: () => {
      child.kill()
    },
  }
}

type JudgeProcess = Awaited<ReturnType<typeof startJudgeProcess>>

/** What one case measured. */
interface Measured {
  rate: number
  maxInFlight: number
  cpuMs: number
  /** Mean judge request time seen by the client (L plus the machine's scheduling delays). */
  observedMs: number
}

/** Client-side judge request times (request sent → response headers), to compare with L. */
function requestTimer() {
  const times: number[] = []
  const timedFetch: typeof fetch = async (input, init) => {
    const started = performance.now()
    const response = await fetch(input, init)
    times.push(performance.now() - started)
    return response
  }
  return { timedFetch, meanMs: () => times.reduce((a, b) => a + b, 0) / Math.max(1, times.length) }
}

function judgeScorers(judge: JudgeProcess, timedFetch?: typeof fetch) {
  const model = createOpenAICompatible({
    name: 'scripted',
    baseURL: judge.baseURL,
    ...(timedFetch ? { fetch: timedFetch } : {}),
  })('bench-judge')
  return {
    judged: {
      scorer: createScorer({
        id: 'judged',
        description: 'a one-call LLM judge',
        type: 'agent',
        judge: { model, instructions: 'You rate agent answers from 0 to 1.' },
      }).generateScore({
        description: 'Rate the answer',
        createPrompt: ({ run }) =>
          `Rate the answer of run ${run.runId}. Answer with a JSON object {"score": number}.`,
      }),
    },
  }
}

/** A fresh 4-partition topic holding the runs, as the Collector would have written them. */
async function prefilledTopic(name: string, runs: RunRecord[]): Promise<string> {
  const kafka = testKafka(name)
  const topic = uniqueName(name)
  await createTopic(kafka, topic, 4)
  const producer = kafka.producer()
  await producer.connect()
  await produceRuns(producer, topic, runs, { partitions: 4, batch: 500 })
  await producer.disconnect()
  return topic
}

async function viaPipeline(runs: RunRecord[], c: number, latencyMs: number): Promise<Measured> {
  const judge = await startJudgeProcess(latencyMs)
  const timer = requestTimer()
  const receiver = await startOtlpReceiver()
  const topic = await prefilledTopic('bench-judge', runs)
  const config = resolveConfig({
    kafka: {
      brokers: testBrokers(),
      topic,
      groupId: uniqueName('bench-judge'),
      fromBeginning: true,
      deadLetterTopic: `${topic}-dlq`,
    },
    assembly: { settleMs: 100 },
    judges: { defaultLimits: { concurrency: c }, timeoutMs: 30_000 },
    scorers: judgeScorers(judge, timer.timedFetch),
    sinks: { otlp: { endpoint: receiver.url } },
    metrics: { port: 0 },
  })
  const pipeline = createPipeline(config, { logger: silentLogger() })
  let first = 0
  let last = 0
  const done = new Promise<void>((resolve) => {
    receiver.onScore = (score) => {
      if (score.error) throw new Error(`judge bench: a failed score: ${score.span.status.message}`)
      if (first === 0) first = performance.now()
      if (receiver.scores.size >= runs.length) {
        last = performance.now()
        resolve()
      }
    }
  })
  const cpu0 = process.cpuUsage()
  await pipeline.start()
  await Promise.race([
    done,
    new Promise((_, reject) =>
      setTimeout(
        () => reject(new Error(`judge bench: ${receiver.scores.size}/${runs.length}`)),
        180_000,
      ).unref(),
    ),
  ])
  const cpu = process.cpuUsage(cpu0)
  await pipeline.stop()
  await receiver.close()
  const { maxInFlight } = await judge.stats()
  judge.close()
  return {
    rate: ((runs.length - 1) * 1000) / (last - first),
    maxInFlight,
    cpuMs: (cpu.user + cpu.system) / 1000 / runs.length,
    observedMs: timer.meanMs(),
  }
}

async function scoringOnly(runs: RunRecord[], c: number, latencyMs: number): Promise<Measured> {
  const judge = await startJudgeProcess(latencyMs)
  const timer = requestTimer()
  const scorers = judgeScorers(judge, timer.timedFetch)
  const governed = judgeFromConfig(resolveConfig({ judges: { defaultLimits: { concurrency: c } }, scorers }))
  const traces = runs.map((r) => decodeOtlpTraces(r.value, 'otlp_proto'))
  const cpu0 = process.cpuUsage()
  const started = performance.now()
  const results = await Promise.all(traces.map((spans) => scoreTrace(spans, { scorers, judge: governed })))
  const ms = performance.now() - started
  const cpu = process.cpuUsage(cpu0)
  const { maxInFlight } = await judge.stats()
  judge.close()
  const failed = results.flatMap((r) => r.records).filter((r) => r.error || r.score === undefined)
  if (failed.length > 0) throw new Error(`judge bench: ${failed.length} failed scores`)
  return {
    rate: (runs.length * 1000) / ms,
    maxInFlight,
    cpuMs: (cpu.user + cpu.system) / 1000 / runs.length,
    observedMs: timer.meanMs(),
  }
}

/** Open runs and memory while a slow judge holds the pipeline back. */
export interface OpenRunsRow {
  path: string
  concurrency: number
  latencyMs: number
  runs: number
  /** Most traces released and waiting for (or in) scoring at once. */
  maxOpenRuns: number
  /** The source's pause threshold for released runs (`maxQueuedTraces`, 1,000). */
  openRunsCap: number
  paused: string
  rssBeforeMiB: number
  rssPeakMiB: number
  /** (peak − before) ÷ most open runs. */
  kibPerOpenRun: number
  target: string
  met: string
}

/**
 * A judge at 2 s with C=4 (2 scores/s) under 50,000 pre-filled runs (250,000 spans): the source
 * must pause, and open runs and resident memory must stay bounded while the backlog stays in
 * Kafka. The bound: the source reads until the assembler holds `pauseAtBufferedSpans` (80% of
 * 200,000 = 160,000 spans = 32,000 five-span runs) or 1,000 released runs wait, plus one fetch
 * already under way (4 partitions x 1 MB = ~4,000 records); settling traces are released into the
 * queue together, so the queue may hold all of them at once.
 */
async function openRuns(): Promise<OpenRunsRow> {
  const n = 50_000
  const c = 4
  const latencyMs = 2_000
  const runs = makeRuns(n, 99)
  const judge = await startJudgeProcess(latencyMs)
  const receiver = await startOtlpReceiver()
  const topic = await prefilledTopic('bench-open-runs', runs)
  const config = resolveConfig({
    kafka: {
      brokers: testBrokers(),
      topic,
      groupId: uniqueName('bench-open-runs'),
      fromBeginning: true,
      deadLetterTopic: `${topic}-dlq`,
    },
    assembly: { settleMs: 100 },
    judges: { defaultLimits: { concurrency: c }, timeoutMs: 30_000 },
    scorers: judgeScorers(judge),
    sinks: { otlp: { endpoint: receiver.url } },
    metrics: { port: 0 },
  })
  const pipeline = createPipeline(config, { logger: silentLogger() })
  globalThis.gc?.()
  const rssBefore = process.memoryUsage().rss
  let rssPeak = rssBefore
  let maxOpen = 0
  let paused = false
  await pipeline.start()
  const until = Date.now() + 15_000
  while (Date.now() < until) {
    const st = pipeline.stats()
    maxOpen = Math.max(maxOpen, st.queuedTraces + st.inFlightTraces)
    paused ||= st.paused
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
    await new Promise((r) => setTimeout(r, 50))
  }
  await pipeline.stop()
  await receiver.close()
  judge.close()
  const mib = (b: number) => Math.round(b / 2 ** 20)
  const cap = 1_000
  const bound = cap + 160_000 / 5 + 4_000
  return {
    path: 'open runs behind a slow judge (pipeline)',
    concurrency: c,
    latencyMs,
    runs: n,
    maxOpenRuns: maxOpen,
    openRunsCap: cap,
    paused: paused ? 'yes' : 'no',
    rssBeforeMiB: mib(rssBefore),
    rssPeakMiB: mib(rssPeak),
    kibPerOpenRun: Math.round((rssPeak - rssBefore) / 1024 / Math.max(1, maxOpen)),
    target: `paused, open runs <= ${bound.toLocaleString('en-US')} (span pause + queue cap + one fetch)`,
    met: paused && maxOpen <= bound ? 'yes' : 'NO',
  }
}

/** Runs every (path, C, L) case, then the open-runs case. */
export async function run(): Promise<(JudgeBenchRow | OpenRunsRow)[]> {
  ensureBroker()
  if (process.env.BENCH_JUDGE_ONLY_OPEN_RUNS) return [await openRuns()]
  // Real judges answer in 0.5–10 s; 50 ms is a stress case where per-request overhead shows.
  const cases = [
    { c: 4, latencyMs: 100, runs: 200 },
    { c: 16, latencyMs: 500, runs: 200 },
    { c: 32, latencyMs: 500, runs: 400 },
    { c: 16, latencyMs: 50, runs: 900 },
  ]
  const rows: (JudgeBenchRow | OpenRunsRow)[] = []
  for (const { c, latencyMs, runs: n } of cases) {
    const runs = makeRuns(n, c)
    for (const [path, measure] of [
      ['pipeline (Kafka -> OTLP)', viaPipeline],
      ['scoring only (scoreTrace + limiter)', scoringOnly],
    ] as const) {
      const { rate, maxInFlight, cpuMs, observedMs } = await measure(runs, c, latencyMs)
      const ideal = (c * 1000) / latencyMs
      const ratio = rate / ideal
      rows.push({
        path,
        concurrency: c,
        latencyMs,
        runs: n,
        scoresPerSec: Math.round(rate),
        idealPerSec: Math.round(ideal),
        ratio: Math.round(ratio * 100) / 100,
        maxInFlight,
        cpuMsPerScore: Math.round(cpuMs * 100) / 100,
        observedLatencyMs: Math.round(observedMs * 10) / 10,
        busyRatio: Math.round(((rate * observedMs) / 1000 / c) * 100) / 100,
        target: `>= 0.9x, in flight <= ${c}`,
        met: ratio >= 0.9 && maxInFlight <= c ? 'yes' : 'NO',
      })
    }
  }
  rows.push(await openRuns())
  return rows
}

if (process.env.BENCH_JUDGE_LATENCY_MS) {
  // Child mode: the scripted judge alone in this process.
  const judge = await startFaultJudge({
    latencyMs: Number(process.env.BENCH_JUDGE_LATENCY_MS),
    policy: () => ({ text: '{"score": 0.7}' }),
  })
  console.log(judge.baseURL)
} else if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(await run())
  process.exit(0)
}
