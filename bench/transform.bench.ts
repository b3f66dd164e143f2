/**
 * Transform benchmark (no Kafka): CPU µs per trace of `extractAgentRuns`, one call per trace as the
 * pipeline makes it. Spans are made fresh before every pass (not timed), because the pipeline
 * extracts each trace once from spans it has just decoded: lazily decoded attributes and the
 * per-span reader cache (`readerFor`) would be warm on a second pass over the same objects.
 *
 * Cases: the agent traffic of the pipeline benchmark (`generateAgentTraffic`, 5 spans per trace) as
 * the pipeline gets it (OTLP protobuf records of 50 spans, scanned and decoded by `readSpans`), as
 * plain objects made from the SDK spans, and with long messages (model-call spans of ≥ 1 KiB keep
 * their attributes encoded until read); and the generated fixtures of every producer
 * (`test/fixtures/data`, protobuf), all together and for OpenInference and OpenLLMetry alone.
 *
 * Each case runs `TRANSFORM_BENCH_WARMUP` (default 3) passes not counted, then
 * `TRANSFORM_BENCH_PASSES` (default 15) timed ones, a full GC before each; the row gives the
 * median, min and max of the passes' CPU µs per trace (user + system, `process.cpuUsage`) and a
 * digest of the runs extracted (the same digest before and after a change: the same output).
 *
 *   npm run bench -- transform
 *   node --import tsx bench/transform.bench.ts          the rows as a table (one process)
 *   node --import tsx bench/transform.bench.ts --json   the rows as JSON
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
  passes: number
  /** CPU µs per trace of `extractAgentRuns`: median, fastest and slowest pass. */
  cpuUsPerTraceP50: number
  cpuUsPerTraceMin: number
  cpuUsPerTraceMax: number
  /** First 12 hex digits of the SHA-256 of the runs (JSON): equal digests, equal output. */
  outputDigest: string
}

/** A case: how to make the traces of one pass, fresh span objects each time. */
interface BenchCase {
  name: string
  traces(): Span[][]
}

/** A full garbage collection (so a pass does not pay for the garbage of making its spans). */
const gc: () => void = (() => {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
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

/** Collector-style records: multi-trace protobuf requests of 50 spans. */
function records(spans: ReadableSpan[]): Buffer[] {
  return chunks(spans, 50).map((batch) => encodeOtlpProto(batch))
}

function generatedCases(): BenchCase[] {
  const traffic = generateAgentTraffic({ runs: 1000, seed: 1 }).spans
  const payloads = records(traffic)
  const long = records(generateAgentTraffic({ runs: 1000, seed: 1, contentWords: 200 }).spans)
  return [
    {
      name: 'generated agent traces, protobuf records (pipeline path)',
      traces: () => decodeRecords(payloads),
    },
    {
      name: 'generated agent traces, SDK spans as plain objects',
      traces: () => [...groupByTrace(traffic.map(expectedSpan)).values()],
    },
    {
      name: 'generated, 200 words per message (lazy attributes)',
      traces: () => decodeRecords(long),
    },
  ]
}

/** The protobuf fixtures of some producers (one trace each), repeated so a pass takes some ms. */
function fixtureCase(name: string, producers: string[] | undefined, repeat: number): BenchCase {
  const payloads = listFixtures(producers).map((entry) => Buffer.from(loadFixture(entry).proto))
  if (payloads.length === 0) throw new Error(`no fixtures for ${name}`)
  return {
    name,
    traces: () => {
      const traces: Span[][] = []
      for (let k = 0; k < repeat; k++) for (const trace of decodeRecords(payloads)) traces.push(trace)
      return traces
    },
  }
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
  let digest = ''
  for (let pass = 0; pass < warmup + passes; pass++) {
    const input = bench.traces()
    const out = new Array<unknown>(input.length)
    gc()
    const cpu0 = process.cpuUsage()
    for (let i = 0; i < input.length; i++) out[i] = extractAgentRuns(input[i]!)
    const cpu = process.cpuUsage(cpu0)
    if (pass >= warmup) perTrace.push((cpu.user + cpu.system) / input.length)
    if (pass === 0) {
      traces = input.length
      spans = input.reduce((n, trace) => n + trace.length, 0)
      runs = (out as unknown[][]).reduce((n, list) => n + list.length, 0)
      digest = createHash('sha256').update(JSON.stringify(out)).digest('hex').slice(0, 12)
    }
  }
  return {
    case: bench.name,
    traces,
    spans,
    runs,
    passes,
    cpuUsPerTraceP50: median(perTrace),
    cpuUsPerTraceMin: Math.min(...perTrace),
    cpuUsPerTraceMax: Math.max(...perTrace),
    outputDigest: digest,
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
  ]
  return cases.map((bench) => measure(bench, warmup, passes))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await run()
  if (process.argv.includes('--json')) console.log(JSON.stringify(rows))
  else {
    for (const row of rows) {
      console.log(
        `${row.case}: ${row.cpuUsPerTraceP50.toFixed(1)} CPU µs per trace (median of ${row.passes}; ` +
          `${row.cpuUsPerTraceMin.toFixed(1)}–${row.cpuUsPerTraceMax.toFixed(1)}), ${row.traces} traces, ` +
          `${row.spans} spans, ${row.runs} runs, output ${row.outputDigest}`,
      )
    }
  }
}
