import type { Writable } from 'node:stream'
import type { ScoreRecord } from '../model/index.ts'
import { createCountingSink } from './counting-sink.ts'
import type { CountingSink } from './sink.ts'

/**
 * One line of `tracescore score` output and of the JSONL sink. Missing values are `null`, so
 * every line has the same keys; `error` is present only when scoring failed.
 */
interface ScoreLine {
  traceId: string
  spanId: string
  agentName: string | null
  scorer: string
  score: number | null
  reason: string | null
  error?: { type: string; message: string }
}

/** The output line of a record (`scorer` is the scorer id). */
function toScoreLine(record: ScoreRecord): ScoreLine {
  const line: ScoreLine = {
    traceId: record.traceId,
    spanId: record.spanId,
    agentName: record.agentName ?? null,
    scorer: record.scorerId,
    score: record.score !== undefined && Number.isFinite(record.score) ? record.score : null,
    reason: record.reason ?? null,
  }
  if (record.error) line.error = { type: record.error.type, message: record.error.message }
  return line
}

/** Configuration of the JSON-lines sink. */
export interface JsonlSinkConfig {
  /** Where lines go; default `process.stdout`. */
  stream?: Writable
}

/**
 * Writes one JSON line per score (`ScoreLine`) to a stream, stdout by default. `deliver`
 * resolves when the stream has flushed the lines; a stream error rejects (no retry).
 */
export function createJsonlSink({ stream = process.stdout }: JsonlSinkConfig = {}): CountingSink {
  return createCountingSink('jsonl', { retry: { retries: 0 } }, async (records, delivery) => {
    if (records.length === 0) return
    const text = records.map((r) => `${JSON.stringify(toScoreLine(r))}\n`).join('')
    await delivery.run(records.length, () => write(stream, text))
  })
}

function write(stream: Writable, text: string): Promise<void> {
  // The callback runs once the stream handed the data on (after any backpressure) or failed.
  return new Promise((resolve, reject) => {
    stream.write(text, (error) => (error ? reject(error) : resolve()))
  })
}
