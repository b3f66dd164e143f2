import { createHash } from 'node:crypto'
import type { ScoreRecord } from '../model/index.ts'
import type { PassThreshold } from './score-attributes.ts'
import { scoreLabel } from './score-attributes.ts'
import { scoreSpanId } from './score-span-id.ts'
import type { TraceScore } from './trace-score.ts'

/** Langfuse score data types tracescore writes. */
export type LangfuseDataType = 'NUMERIC' | 'BOOLEAN' | 'CATEGORICAL'

/** The body of `POST /api/public/scores` (Langfuse `CreateScoreRequest`). */
export interface LangfuseScoreRequest {
  /** Deterministic per (trace, agent span, scorer): a retry or replay overwrites, never duplicates. */
  id: string
  traceId: string
  observationId: string
  name: string
  value: number | string
  dataType: LangfuseDataType
  comment?: string
  metadata: Record<string, unknown>
  environment?: string
}

/** The idempotency id of a score in Langfuse: a UUID-shaped SHA-256 of (trace, span, scorer). */
export function langfuseScoreId(record: ScoreRecord): string {
  return uuidShaped(
    `tracescore/${record.traceId.toLowerCase()}/${record.spanId.toLowerCase()}/${record.scorerId}`,
  )
}

function uuidShaped(key: string): string {
  const hex = createHash('sha256').update(key).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

/**
 * The Langfuse score for a record, or `undefined` when there is no value to write (a failed
 * scoring). Data type by value: a number is NUMERIC; a label without a number is BOOLEAN when it
 * reads `true`/`false`, else CATEGORICAL; `dataTypes` forces a type per scorer id (BOOLEAN from a
 * number is 1 when the score is ≥ 0.5).
 */
export function toLangfuseScore(
  record: ScoreRecord,
  options: {
    environment?: string
    passThreshold?: PassThreshold
    dataTypes?: Record<string, LangfuseDataType>
  } = {},
): LangfuseScoreRequest | undefined {
  if (record.error) return undefined
  const score = record.score !== undefined && Number.isFinite(record.score) ? record.score : undefined
  const label = scoreLabel(record, options.passThreshold)
  const forced = options.dataTypes?.[record.scorerId]
  let dataType: LangfuseDataType
  let value: number | string
  if (forced === 'BOOLEAN' && (score !== undefined || isBooleanLabel(label))) {
    dataType = 'BOOLEAN'
    value = score !== undefined ? (score >= 0.5 ? 1 : 0) : label?.toLowerCase() === 'true' ? 1 : 0
  } else if (forced === 'CATEGORICAL' && label !== undefined) {
    dataType = 'CATEGORICAL'
    value = label
  } else if (score !== undefined) {
    dataType = 'NUMERIC'
    value = score
  } else if (isBooleanLabel(label)) {
    dataType = 'BOOLEAN'
    value = label?.toLowerCase() === 'true' ? 1 : 0
  } else if (label !== undefined) {
    dataType = 'CATEGORICAL'
    value = label
  } else {
    return undefined
  }
  const metadata: Record<string, unknown> = {
    source: 'tracescore',
    scorerId: record.scorerId,
    scorerKind: record.scorerKind,
    runId: record.runId,
    scoreSpanId: scoreSpanId(record.traceId, record.spanId, record.scorerId),
  }
  if (label !== undefined && dataType === 'NUMERIC') metadata.label = label
  if (record.agentName) metadata.agentName = record.agentName
  if (record.agentId) metadata.agentId = record.agentId
  if (record.samplingRate !== undefined) metadata.samplingRate = record.samplingRate
  if (record.judge) metadata.judge = record.judge
  const request: LangfuseScoreRequest = {
    id: langfuseScoreId(record),
    traceId: record.traceId.toLowerCase(),
    observationId: record.spanId.toLowerCase(),
    name: record.scorerName || record.scorerId,
    value,
    dataType,
    metadata,
  }
  if (record.reason) request.comment = record.reason
  if (options.environment) request.environment = options.environment
  return request
}

function isBooleanLabel(label: string | undefined): boolean {
  return label !== undefined && /^(true|false)$/i.test(label)
}

/** The body of a trace-level score: `POST /api/public/scores` without an observation. */
export type LangfuseTraceScoreRequest = Omit<LangfuseScoreRequest, 'observationId'>

/** The idempotency id of a trace-level score: a UUID-shaped SHA-256 of (trace, scorer). */
export function langfuseTraceScoreId(traceId: string, scorerId: string): string {
  return uuidShaped(`tracescore/${traceId.toLowerCase()}/trace/${scorerId}`)
}

/**
 * The Langfuse trace-level score for a scorer's runs in a trace (attached to the trace only, which
 * Langfuse's trace table shows): the run's score, or the mean of several with their count and the
 * runs in `metadata`. Data type as for a run's score, from the mean and the label the runs share;
 * `undefined` when there is nothing to write (no run scored, or label-only runs that disagree).
 */
export function toLangfuseTraceScore(
  score: TraceScore,
  record: ScoreRecord,
  options: Parameters<typeof toLangfuseScore>[1] = {},
): LangfuseTraceScoreRequest | undefined {
  const aggregate: ScoreRecord = {
    ...record,
    score: score.score,
    label: score.label,
    reason: score.explanation,
    error: undefined,
  }
  const run = toLangfuseScore(aggregate, options)
  if (run === undefined) return undefined
  const { observationId: _, ...request } = run
  request.id = langfuseTraceScoreId(score.traceId, score.scorerId)
  request.metadata = {
    source: 'tracescore',
    scorerId: score.scorerId,
    scorerKind: score.scorerKind,
    count: score.count,
    runs: score.runs,
    ...(run.metadata.label !== undefined ? { label: run.metadata.label } : {}),
  }
  return request
}
