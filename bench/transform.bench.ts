/**
 * Transform benchmark (no Kafka): CPU µs per trace of `extractAgentRuns`, one call per trace as the
 * pipeline makes it. Spans are made fresh for every pass (not timed), a batch of about 100 traces
 * at a time, because the pipeline extracts each trace once from spans it has just decoded: lazily
 * decoded attributes would be decoded already on a second pass over the same objects.
 *
 * Cases: the agent traffic of the pipeline benchmark (`generateAgentTraffic`, 5 spans per trace) as
 * the pipeline gets it (OTLP protobuf records of 50 spans, scanned and decoded by `readSpans`), as
 * plain objects made from the SDK spans, and with long messages (model-call spans of ≥ 1 KiB keep
 * their attributes encoded until read); and the generated fixtures of every producer
 * (`test/fixtures/data`, protobuf), all together and for OpenInference, OpenLLMetry and Logfire alone.
 *
 * Each case runs `TRANSFORM_BENCH_WARMUP` (default 3) passes not counted, then
 * `TRANSFORM_BENCH_PASSES` (default 15) timed ones; the row gives the median, min and max of the
 * passes' CPU µs per trace (user + system, `process.cpuUsage`, so the garbage collection the
 * extraction causes counts) and a digest of the runs of the first pass (the same digest before and
 * after a change: the same output).
 *
 *   npm run bench -- transform                          under tsx, as every benchmark
 *   node --import tsx bench/transform.bench.ts          the rows as text (one process)
 *   node bench/transform.bench.ts                       the same with Node's own type stripping:
 *     the code as the service runs it from dist/, without tsx's wrappers that name each function
 *     made at run time (`__name`), which add 5-20% to extractAgentRuns
 *   node --import tsx bench/transform.bench.ts --json   the rows as JSON
 *   TRANSFORM_BENCH_CASES=generated node --import tsx bench/transform.bench.ts   only matching cases
 */
import { createHash } from 'node:crypto'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { expectedSpan } from '../src/ingest/decode/testing/sdk-spans.ts'
import { readSpans } from '../src/ingest/record-reader.ts'
import { chunks, encodeOtlpProto, generateAgentTraffic } from '../src/ingest/testing/agent-traffic.ts'
import { groupByTrace, type Span } from '../src/model/index.ts'
import { extractAgentRuns } from '../src/transform/index.ts'
import { listFixtures, loadFixture } from '../test/fixtures/index.ts'

/** One benchmark result. */
export interface TransformBenchRow {
  case: string
  traces: number
  spans: number
  /** Agent runs extracted per pass. */
  runs: number
  /** Timed passes (named so that `bench/run.ts` does not list it as a target). */
  rounds: number
  /** CPU µs per trace of `extractAgentRuns`: median, fastest and slowest pass. */
  cpuUsPerTraceP50: number
  cpuUsPerTraceMin: number
  cpuUsPerTraceMax: number
  /** First 12 hex digits of the SHA-256 of the runs (JSON, ids renumbered): equal digests, equal output. */
  outputDigest: string
}

/**
 * A case: the traces of one pass as batches, each made when its turn comes (fresh span objects),
 * so a pass holds the spans of one batch at a time, as the pipeline holds a few traces at a time.
 */
interface BenchCase {
  name: string
  batches: number
  batch(index: number): Span[][]
}

/**
 * Before each batch is timed, two young-generation collections (`TRANSFORM_BENCH_GC=minor`, the
 * default) clear the garbage of decoding it and move its spans to the old generation, as in the
 * pipeline, which holds spans for the settle period before their trace is extracted; so the
 * collector's work in the timed part is the extraction's own. `major` runs a full collection
 * instead, `none` none. A full one made every pass slower (55-60 µs per generated trace against
 * 35-37 without, compiled code): it shrinks the young generation, so the extraction that follows
 * scavenges more often.
 */
const GC_MODE = { type: process.env.TRANSFORM_BENCH_GC ?? 'minor' }

/** A garbage collection of `type` (`--expose-gc` is not needed), or none. */
const gc: (options: { type: string }) => void = (() => {
  setFlagsFromString('--expose-gc')
  const collect = runInNewContext('gc') as (options: { type: string }) => void
  return (options) => {
    if (options.type === 'none') return
    collect(options)
    // A second young collection promotes the spans to the old generation.
    if (options.type === 'minor') collect(options)
  }
})()

/** Decodes OTLP protobuf records as the pipeline does (`readSpans`: scan, then each span decoded). */
function decodeRecords(payloads: readonly Buffer[]): Span[][] {
  const spans: Span[] = []
  for (const payload of payloads) {
    const batch = readSpans(payload, 'otlp_proto')
    for (let i = 0; i < batch.length; i++) spans.push(batch.span(i))
  }
  return [...groupByTrace(spans).values()]
}

/** Collector-style records (multi-trace protobuf requests of 50 spans), `perBatch` records a batch. */
function recordBatches(spans: ReadableSpan[], perBatch: number): Buffer[][] {
  return chunks(
    chunks(spans, 50).map((batch) => encodeOtlpProto(batch)),
    perBatch,
  )
}

/** 1,000 agent traces (5 spans each) in batches of 100 traces. */
function generatedCases(): BenchCase[] {
  const traffic = generateAgentTraffic({ runs: 1000, seed: 1 }).spans
  const payloads = recordBatches(traffic, 10)
  const sdk = chunks(traffic, 500)
  const long = recordBatches(generateAgentTraffic({ runs: 1000, seed: 1, contentWords: 200 }).spans, 10)
  return [
    {
      name: 'generated agent traces, protobuf records (pipeline path)',
      batches: payloads.length,
      batch: (index) => decodeRecords(payloads[index]!),
    },
    {
      name: 'generated agent traces, SDK spans as plain objects',
      batches: sdk.length,
      batch: (index) => [...groupByTrace(sdk[index]!.map(expectedSpan)).values()],
    },
    {
      name: 'generated, 200 words per message (lazy attributes)',
      batches: long.length,
      batch: (index) => decodeRecords(long[index]!),
    },
  ]
}

/** The protobuf fixtures of some producers (one trace each), `repeat` batches of all of them a pass. */
function fixtureCase(name: string, producers: string[] | undefined, repeat: number): BenchCase {
  const payloads = listFixtures(producers).map((entry) => Buffer.from(loadFixture(entry).proto))
  if (payloads.length === 0) throw new Error(`no fixtures for ${name}`)
  return { name, batches: repeat, batch: () => decodeRecords(payloads) }
}

/**
 * A digest of the runs that does not depend on the trace and span ids (the SDK draws them at random
 * in every process): each id becomes its rank of first appearance.
 */
function digestOf(runs: unknown): string {
  const ids = new Map<string, number>()
  const text = JSON.stringify(runs).replace(/\b(?:[0-9a-f]{32}|[0-9a-f]{16})\b/g, (id) => {
    if (!ids.has(id)) ids.set(id, ids.size)
    return `#${ids.get(id)}`
  })
  return createHash('sha256').update(text).digest('hex').slice(0, 12)
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

function measure(bench: BenchCase, warmup: number, passes: number): TransformBenchRow {
  const perTrace: number[] = []
  let runs = 0
  let spans = 0
  let traces = 0
  const firstPass: unknown[] = []
  for (let pass = 0; pass < warmup + passes; pass++) {
    let cpuMicros = 0
    let count = 0
    for (let index = 0; index < bench.batches; index++) {
      const input = bench.batch(index)
      const out = new Array<unknown>(input.length)
      gc(GC_MODE)
      const cpu0 = process.cpuUsage()
      for (let i = 0; i < input.length; i++) out[i] = extractAgentRuns(input[i]!)
      const cpu = process.cpuUsage(cpu0)
      cpuMicros += cpu.user + cpu.system

      count += input.length
      if (pass === 0) {
        spans += input.reduce((n, trace) => n + trace.length, 0)
        runs += (out as unknown[][]).reduce((n, list) => n + list.length, 0)
        firstPass.push(out)
      }
    }
    if (pass === 0) traces = count
    if (pass >= warmup) {
      perTrace.push(cpuMicros / count)
    }
  }
  return {
    case: bench.name,
    traces,
    spans,
    runs,
    rounds: passes,
    cpuUsPerTraceP50: median(perTrace),
    cpuUsPerTraceMin: Math.min(...perTrace),
    cpuUsPerTraceMax: Math.max(...perTrace),
    outputDigest: digestOf(firstPass),
  }
}

/** Runs every case; one row each. */
export async function run(options: { warmup?: number; passes?: number } = {}): Promise<TransformBenchRow[]> {
  const warmup = options.warmup ?? Number(process.env.TRANSFORM_BENCH_WARMUP ?? 3)
  const passes = options.passes ?? Number(process.env.TRANSFORM_BENCH_PASSES ?? 15)
  const cases = [
    ...generatedCases(),
    fixtureCase('fixtures: every producer (protobuf, one trace each)', undefined, 5),
    fixtureCase(
      'fixtures: OpenInference (openai, vercel)',
      ['openinference-openai', 'openinference-vercel'],
      40,
    ),
    fixtureCase('fixtures: OpenLLMetry (traceloop, traceloop-legacy)', ['traceloop', 'traceloop-legacy'], 40),
    fixtureCase('fixtures: OpenLLMetry LangGraph (traceloop-langgraph)', ['traceloop-langgraph'], 40),
    fixtureCase('fixtures: Logfire (logfire-openai-agents)', ['logfire-openai-agents'], 40),
  ]
  const only = process.env.TRANSFORM_BENCH_CASES
  return cases
    .filter((bench) => !only || bench.name.includes(only))
    .map((bench) => measure(bench, warmup, passes))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await run()
  if (process.argv.includes('--json')) console.log(JSON.stringify(rows))
  else {
    for (const row of rows) {
      console.log(
        `${row.case}: ${row.cpuUsPerTraceP50.toFixed(1)} CPU µs per trace (median of ${row.rounds}; ` +
          `${row.cpuUsPerTraceMin.toFixed(1)}–${row.cpuUsPerTraceMax.toFixed(1)}), ${row.traces} traces, ` +
          `${row.spans} spans, ${row.runs} runs, output ${row.outputDigest}`,
      )
    }
  }
}
