/**
 * Memory benchmark of the ingest buffer: resident memory held by the trace assembler with 100,000
 * buffered realistic GenAI spans (agent, chat spans carrying message JSON, tool spans), against the
 * size of the OTLP protobuf payloads they were decoded from (target: at most 2x), and that the
 * configured span cap holds when more spans arrive than it allows.
 * Run with `npx tsx bench/memory.bench.ts`; `run()` returns the rows.
 *
 * The payloads are generated in a child process and read from one file, so the generator's heap
 * does not count; each case runs in fresh processes (median of three), measured after a full GC
 * against a baseline taken after the same payloads were decoded once without being kept. The
 * heap ratio is stable; RSS also holds what V8 keeps committed (its young generation grows under a
 * buffering load), which the third case caps with `--max-semi-space-size`. In the capped case the
 * released traces are garbage: its RSS shows churn, the point there is that the cap holds.
 */
import { spawnSync } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { readSpans } from '../src/ingest/record-reader.ts'
import {
  chunks,
  encodeOtlpProto,
  generateAgentTraffic,
  isGeneratedAgentSpan,
} from '../src/ingest/testing/agent-traffic.ts'
import { TraceAssembler } from '../src/ingest/trace-assembler.ts'

/** One measurement. */
export interface MemoryBenchRow {
  case: string
  bufferedSpans: number
  /** Bytes of the protobuf payloads the buffered spans came from. */
  payloadBytes: number
  /** Growth of resident memory (RSS) while the spans are buffered. */
  rssBytes: number
  /** Growth of the V8 heap. */
  heapBytes: number
  /** Growth of the heap V8 has committed (used plus reserve). */
  heapCommittedBytes: number
  /** rssBytes / payloadBytes of the buffered spans (target <= 2). */
  ratio: number
  /** RSS growth per payload byte over the second half of the spans (fixed runtime costs excluded). */
  marginalRatio?: number
  /** V8 heap growth per payload byte over the second half. */
  marginalHeapRatio?: number
  /** The cap configured, and the highest buffered count seen after any add. */
  cap?: number
  maxSeen?: number
}

const RUNS = 20_000 // 5 spans each: 100,000 spans
const SPANS_PER_RECORD = 50
const CONTENT_WORDS = 120 // ~0.8 KB per message: chat spans carry ~2 KB of message JSON
const file = join(tmpdir(), `tracescore-memory-bench-${RUNS}-${CONTENT_WORDS}.bin`)

/** Writes the payloads, length-prefixed, to `file` (run in a child process). */
function generate(): void {
  const parts: Buffer[] = []
  for (let seed = 0; seed < RUNS / 1000; seed++) {
    const traffic = generateAgentTraffic({ runs: 1000, contentWords: CONTENT_WORDS, seed: seed + 1 })
    for (const batch of chunks(traffic.spans, SPANS_PER_RECORD)) {
      const payload = encodeOtlpProto(batch)
      const length = Buffer.alloc(4)
      length.writeUInt32BE(payload.length)
      parts.push(length, payload)
    }
  }
  mkdirSync(tmpdir(), { recursive: true })
  writeFileSync(file, Buffer.concat(parts))
}

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const settle = () => {
  for (let i = 0; i < 3; i++) gc()
}

/** Calls `each` with every payload of the file, read one by one into one reused buffer (a Kafka fetch buffer is transient too). */
function forEachPayload(each: (payload: Buffer) => void): void {
  const fd = openSync(file, 'r')
  const head = Buffer.alloc(4)
  let buffer = Buffer.allocUnsafeSlow(1 << 20)
  for (let at = 0; readSync(fd, head, 0, 4, at) === 4; ) {
    const length = head.readUInt32BE(0)
    if (length > buffer.length) buffer = Buffer.allocUnsafeSlow(length)
    readSync(fd, buffer, 0, length, at + 4)
    at += 4 + length
    each(buffer.subarray(0, length))
  }
  closeSync(fd)
}

/** Options of one case; `wallClock`: an epoch-ms clock and Kafka record times, as in production. */
interface CaseOptions {
  maxBufferedSpans?: number
  wallClock?: boolean
}

/** An epoch-ms instant (2026-12-03): what `Date.now()` and Kafka record timestamps look like. */
const EPOCH_MS = 1_796_300_000_000

function measure(name: string, options: CaseOptions): MemoryBenchRow {
  // Warm-up: decode everything once without keeping it, so the runtime's working set for decoding
  // (V8's young generation grows to tens of MB under any allocation-heavy load) is in the baseline
  // and the growth measured below is what the buffer holds.
  forEachPayload((payload) => {
    readSpans(Buffer.from(payload), 'otlp_proto')
  })
  settle()
  const before = process.memoryUsage()
  let record = 0
  const assembler = new TraceAssembler<number>({
    isAgentRunSpan: isGeneratedAgentSpan,
    // Time stands still (or, on the wall clock, nothing is ever quiet long enough): nothing
    // settles, everything stays buffered.
    now: options.wallClock ? () => EPOCH_MS + record : () => 0,
    settleMs: options.wallClock ? Number.MAX_SAFE_INTEGER : undefined,
    maxTraceAgeMs: options.wallClock ? Number.MAX_SAFE_INTEGER : undefined,
    maxBufferedSpans: options.maxBufferedSpans ?? Number.MAX_SAFE_INTEGER,
    maxBufferedBytes: Number.MAX_SAFE_INTEGER,
  })
  let maxSeen = 0
  let half: { rss: number; heap: number; bytes: number } | undefined
  forEachPayload((payload) => {
    // What the span source does: the record reader's scan (or decode), into the assembler. A copy
    // of the payload, as a Kafka client hands out a fresh buffer per fetch (`forEachPayload` reuses one).
    const eventMs = options.wallClock ? EPOCH_MS + record : undefined
    assembler.addBatch(readSpans(Buffer.from(payload), 'otlp_proto'), record++, payload.length, eventMs)
    const stats = assembler.stats()
    maxSeen = Math.max(maxSeen, stats.bufferedSpans)
    if (record % 100 === 0) assembler.takeReady() // drops what the cap released
    if (
      half === undefined &&
      options.maxBufferedSpans === undefined &&
      stats.bufferedSpans >= (RUNS * 5) / 2
    ) {
      settle()
      const m = process.memoryUsage()
      half = { rss: m.rss, heap: m.heapUsed, bytes: stats.bufferedBytes }
    }
  })
  assembler.takeReady()
  settle()
  const after = process.memoryUsage()
  const stats = assembler.stats()
  const row: MemoryBenchRow = {
    case: name,
    bufferedSpans: stats.bufferedSpans,
    payloadBytes: Math.round(stats.bufferedBytes),
    rssBytes: after.rss - before.rss,
    heapBytes: after.heapUsed - before.heapUsed,
    heapCommittedBytes: after.heapTotal - before.heapTotal,
    ratio: (after.rss - before.rss) / stats.bufferedBytes,
  }
  if (half !== undefined) {
    // The second 50,000 spans alone: fixed costs (V8's young generation reserve) are paid by then.
    row.marginalRatio = (after.rss - half.rss) / (stats.bufferedBytes - half.bytes)
    row.marginalHeapRatio = (after.heapUsed - half.heap) / (stats.bufferedBytes - half.bytes)
  }
  if (options.maxBufferedSpans !== undefined) {
    row.cap = options.maxBufferedSpans
    row.maxSeen = maxSeen
  }
  return row
}

/** Runs both cases (generating the payload file first if needed) and returns the rows. */
export function run(): MemoryBenchRow[] {
  if (!existsSync(file)) {
    const self = fileURLToPath(import.meta.url)
    const result = spawnSync(process.execPath, ['--import', 'tsx', self, '--generate'], { stdio: 'inherit' })
    if (result.status !== 0) throw new Error('payload generation failed')
  }
  // Each case in a fresh process, so one case's freed heap does not lower the next one's growth.
  return CASES.map((_, i) => {
    const self = fileURLToPath(import.meta.url)
    // RSS after a GC depends on how far V8 grew its young generation: median of three processes.
    const rows = [0, 1, 2].map(() => {
      const flags = CASES[i]![2] ?? []
      const result = spawnSync(process.execPath, [...flags, '--import', 'tsx', self, '--case', String(i)], {
        stdio: ['ignore', 'pipe', 'inherit'],
        encoding: 'utf8',
      })
      if (result.status !== 0) throw new Error(`case ${i} failed`)
      return JSON.parse(result.stdout.trim().split('\n').pop()!) as MemoryBenchRow
    })
    return rows.sort((a, b) => a.ratio - b.ratio)[1]!
  })
}

const CASES: [string, CaseOptions, string[]?][] = [
  ['100,000 buffered GenAI spans', {}],
  ['100,000 buffered GenAI spans, epoch-ms clock and record times (as from Kafka)', { wallClock: true }],
  ['same input, maxBufferedSpans 50,000', { maxBufferedSpans: 50_000 }],
  // V8's young generation grows to tens of MB under a buffering load; capped, RSS follows the heap.
  ['100,000 buffered GenAI spans, node --max-semi-space-size=8', {}, ['--max-semi-space-size=8']],
]

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`

if (import.meta.url === `file://${process.argv[1]}`) {
  const caseIndex = process.argv.indexOf('--case')
  if (process.argv.includes('--generate')) generate()
  else if (caseIndex > 0) {
    const [name, options] = CASES[Number(process.argv[caseIndex + 1])]!
    console.log(JSON.stringify(measure(name, options)))
  } else {
    for (const row of run()) {
      console.log(
        `${row.case}: ${row.bufferedSpans} spans buffered from ${mb(row.payloadBytes)} of payload; ` +
          `RSS +${mb(row.rssBytes)}, heap +${mb(row.heapBytes)}; ratio ${row.ratio.toFixed(2)} (target <= 2)` +
          `; heap/payload ${(row.heapBytes / row.payloadBytes).toFixed(2)}` +
          (row.marginalRatio !== undefined
            ? `; marginal RSS/payload ${row.marginalRatio.toFixed(2)}, heap ${row.marginalHeapRatio!.toFixed(2)}`
            : '') +
          (row.cap !== undefined ? `; cap ${row.cap}, highest buffered ${row.maxSeen}` : ''),
      )
    }
  }
}
