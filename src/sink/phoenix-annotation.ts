import type { ScoreRecord } from '../model/index.ts'
import type { PassThreshold } from './score-attributes.ts'
import { scoreLabel } from './score-attributes.ts'
import { scoreSpanId } from './score-span-id.ts'
import type { TraceRunScore, TraceScore } from './trace-score.ts'

/** One entry of `POST /v1/span_annotations` (Phoenix `SpanAnnotationData`). */
interface PhoenixSpanAnnotation {
  span_id: string
  name: string
  annotator_kind: 'LLM' | 'CODE'
  result: { score?: number; label?: string; explanation?: string }
  metadata: Record<string, unknown>
  /** With `span_id` and `name` the upsert key: a replay updates the annotation. */
  identifier: string
}

/**
 * The Phoenix span annotation for a score, on the agent-run span it judges. A failed scoring is
 * annotated with label `error` and the error as explanation, so the later successful re-score
 * (same span, name and identifier) replaces it.
 */
export function toPhoenixAnnotation(
  record: ScoreRecord,
  passThreshold?: PassThreshold,
): PhoenixSpanAnnotation {
  const result: PhoenixSpanAnnotation['result'] = {}
  if (record.score !== undefined && Number.isFinite(record.score)) result.score = record.score
  const label = record.error ? 'error' : scoreLabel(record, passThreshold)
  if (label !== undefined) result.label = label
  const explanation = record.error ? `${record.error.type}: ${record.error.message}` : record.reason
  if (explanation) result.explanation = explanation
  const metadata: Record<string, unknown> = {
    source: 'tracescore',
    scorer_id: record.scorerId,
    run_id: record.runId,
    score_span_id: scoreSpanId(record.traceId, record.spanId, record.scorerId),
  }
  if (record.agentName) metadata.agent_name = record.agentName
  if (record.agentId) metadata.agent_id = record.agentId
  if (record.samplingRate !== undefined) metadata.sampling_rate = record.samplingRate
  if (record.judge) metadata.judge = record.judge
  if (record.error) metadata.error = record.error
  return {
    span_id: record.spanId.toLowerCase(),
    name: record.scorerName || record.scorerId,
    annotator_kind: record.scorerKind === 'llm' ? 'LLM' : 'CODE',
    result,
    metadata,
    identifier: record.scorerId,
  }
}

/** One entry of `POST /v1/trace_annotations` (Phoenix `TraceAnnotationData`). */
export interface PhoenixTraceAnnotation {
  trace_id: string
  name: string
  annotator_kind: 'LLM' | 'CODE'
  result: { score?: number; label?: string; explanation?: string }
  /** `runs` lists every agent run the score stands for; a later delivery merges into it. */
  metadata: { source: 'tracescore'; scorer_id: string; count: number; runs: TraceRunScore[] }
  /** With `trace_id` and `name` the upsert key: one annotation per scorer per trace. */
  identifier: string
}

/**
 * The Phoenix trace annotation for a scorer's runs in a trace: the run's score, or the mean of
 * several with their count (`metadata.count`, each run in `metadata.runs`). A trace where no run
 * got a score is labelled `error`, so a later successful re-score replaces it.
 */
export function toPhoenixTraceAnnotation(score: TraceScore): PhoenixTraceAnnotation {
  const result: PhoenixTraceAnnotation['result'] = {}
  if (score.score !== undefined) result.score = score.score
  const failed = score.count === 0 && score.runs.some((r) => r.error !== undefined)
  const label = failed ? 'error' : score.label
  if (label !== undefined) result.label = label
  if (score.explanation) result.explanation = score.explanation
  return {
    trace_id: score.traceId,
    name: score.scorerName,
    annotator_kind: score.scorerKind === 'llm' ? 'LLM' : 'CODE',
    result,
    metadata: { source: 'tracescore', scorer_id: score.scorerId, count: score.count, runs: score.runs },
    identifier: score.scorerId,
  }
}
