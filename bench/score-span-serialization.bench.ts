/**
 * Score span serialization: CPU µs per score span to write the OTLP/protobuf body of one export
 * request of 200 score spans (no Kafka, no HTTP), by
 * - `writer`: `serializeScoreSpanRequest`, what the http/protobuf exporter uses;
 * - `otel`: the OTel JS `ProtobufTraceSerializer` alone (whole-number scores as ints);
 * - `otel+rewrite`: that plus `withDoubleScoresProto`, what the exporter used before the writer.
 *   The rewrite is deleted: this subject runs only in a copy of an older tree that still has it
 *   (`SCORE_SPAN_BENCH_BEFORE_TREE=<dir>`, e.g. main at 64deea3, with this file copied in).
 *
 * Each measurement is its own process: a warm-up, then the median of 15 rounds of 50 requests,
 * CPU time (`process.cpuUsage`). The subjects alternate, 3 rounds of processes.
 *
 *   npm run bench -- score-span
 *   node --import tsx bench/score-span-serialization.bench.ts --measure <subject>   one measurement, as JSON
 */
import { spawnSync } from 'node:child_process'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { scoreSpanResource, toScoreSpan } from '../src/sink/score-span.ts'
import { scoreRecordFixture } from '../src/sink/testing/score-record-fixture.ts'

const self = fileURLToPath(import.meta.url)
const SPANS = 200

/** One measurement: one subject in one process. */
export interface ScoreSpanSerializationRow {
  case: string
  subject: string
  /** Which alternation round (1-3). */
  round: number
  /** CPU µs per score span, median of the process's rounds. */
  cpuUsPerSpan: number
  bytesPerSpan: number
}

type Serialize = (spans: ReadableSpan[]) => Uint8Array

// Modules named by a variable: each subject needs only its own module to exist in the tree.
const sink = (file: string) => `../src/sink/${file}`
const SUBJECTS: Record<string, () => Promise<Serialize>> = {
  writer: async () => (await import(sink('score-span-protobuf.ts'))).serializeScoreSpanRequest,
  otel: async () => (spans) => ProtobufTraceSerializer.serializeRequest(spans)!,
  'otel+rewrite': async () => {
    const { withDoubleScoresProto } = await import(sink('score-value-encoding.ts'))
    return (spans) => withDoubleScoresProto(ProtobufTraceSerializer.serializeRequest(spans)!)
  },
}

/** A batch as the OTLP sink builds it: several scorers, whole and fractional scores, some failures. */
function scoreSpans(): ReadableSpan[] {
  const resource = scoreSpanResource({ 'deployment.environment': 'bench' })
  const scorers = ['task-success', 'tool-use', 'relevance', 'toxicity']
  return Array.from({ length: SPANS }, (_, i) => {
    const failed = i % 25 === 0
    const record = scoreRecordFixture({
      traceId: ((i >> 2) * 7919 + 1).toString(16).padStart(32, '0'),
      spanId: (i + 1).toString(16).padStart(16, '0'),
      scorerId: scorers[i % 4]!,
      score: failed ? undefined : i % 4 < 2 ? i % 2 : (i % 97) / 97,
      reason: failed
        ? undefined
        : `The agent ${'answered the question and cited its tool results '.repeat(1 + (i % 3))}`,
      error: failed ? { type: 'JudgeError', message: 'judge timed out after 30000 ms' } : undefined,
    })
    return toScoreSpan(record, { resource, passThreshold: 0.5 })
  })
}

async function measure(subject: string): Promise<{ cpuUsPerSpan: number; bytesPerSpan: number }> {
  const load = SUBJECTS[subject]
  if (!load) throw new Error(`unknown subject ${subject}; one of ${Object.keys(SUBJECTS).join(', ')}`)
  const serialize = await load()
  const spans = scoreSpans()
  const bytesPerSpan = serialize(spans).length / SPANS
  for (let i = 0; i < 300; i++) serialize(spans)
  const perSpan: number[] = []
  for (let round = 0; round < 15; round++) {
    const start = process.cpuUsage()
    for (let i = 0; i < 50; i++) serialize(spans)
    const used = process.cpuUsage(start)
    perSpan.push((used.user + used.system) / (50 * SPANS))
  }
  return { cpuUsPerSpan: median(perSpan), bytesPerSpan }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/** One measurement in a fresh process of `tree` (this one by default). */
function measureInProcess(subject: string, round: number, tree?: string): ScoreSpanSerializationRow {
  const script = tree ? join(resolve(tree), 'bench', 'score-span-serialization.bench.ts') : self
  const result = spawnSync(process.execPath, ['--import', 'tsx', script, '--measure', subject], {
    cwd: tree ?? join(self, '..', '..'),
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  })
  if (result.status !== 0) throw new Error(`${subject} failed (exit ${result.status ?? result.signal})`)
  const measured = JSON.parse(result.stdout.trim().split('\n').pop()!) as Awaited<ReturnType<typeof measure>>
  return { case: `${SPANS} score spans, one request`, subject, round, ...measured }
}

/** The subjects alternated in separate processes, 3 rounds. */
export function run(): ScoreSpanSerializationRow[] {
  const before = process.env.SCORE_SPAN_BENCH_BEFORE_TREE
  const rows: ScoreSpanSerializationRow[] = []
  for (let round = 1; round <= 3; round++) {
    if (before) rows.push(measureInProcess('otel+rewrite', round, before))
    rows.push(measureInProcess('otel', round))
    rows.push(measureInProcess('writer', round))
  }
  return rows
}

if (process.argv[2] === '--measure' && resolve(process.argv[1] ?? '') === self) {
  console.log(JSON.stringify(await measure(process.argv[3]!)))
} else if (resolve(process.argv[1] ?? '') === self) {
  for (const row of run()) console.log(JSON.stringify(row))
}
