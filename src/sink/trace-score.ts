import type { ScoreRecord } from '../model/index.ts'
import type { PassThreshold } from './score-attributes.ts'
import { scoreLabel } from './score-attributes.ts'

/** One agent run's outcome as a trace-level score keeps it (in the score's metadata, `runs`). */
export interface TraceRunScore {
  /** The agent-run span: the key a later delivery of the same run replaces the entry by. */
  span_id: string
  run_id: string
  score?: number
  label?: string
  /** `type: message` of a failed scoring. */
  error?: string
}

/** The score of one scorer over the agent runs of one trace. */
export interface TraceScore {
  traceId: string
  scorerId: string
  scorerName: string
  scorerKind: ScoreRecord['scorerKind']
  /** Every run known for this (trace, scorer), by agent span id. */
  runs: TraceRunScore[]
  /** Mean of the runs that have a score; absent when none has. */
  score?: number
  /** Runs that have a score (the mean's count). */
  count: number
  /** The label all scored runs share, else pass/fail of the mean by `passThreshold`. */
  label?: string
  explanation?: string
}

/** Runs already recorded for a (trace, scorer), e.g. read back from the backend; undefined when none. */
export type PreviousRuns = (traceId: string, scorerId: string) => readonly TraceRunScore[] | undefined

/**
 * The trace-level scores of a delivery: one per (trace, scorer), over the runs of that scorer in
 * the trace, merged with `previous` runs by agent span id (a run delivered again replaces its
 * entry, so a replay changes nothing and a late run joins the earlier ones). One run: its own
 * score, label and reason; several: the mean and its count, each run in `runs`.
 */
export function traceScoresOf(
  records: readonly ScoreRecord[],
  passThreshold?: PassThreshold,
  previous?: PreviousRuns,
): TraceScore[] {
  const groups = new Map<string, { first: ScoreRecord; runs: Map<string, TraceRunScore>; reason?: string }>()
  for (const record of records) {
    const traceId = record.traceId.toLowerCase()
    const key = `${traceId}/${record.scorerId}`
    let group = groups.get(key)
    if (!group) {
      const runs = new Map((previous?.(traceId, record.scorerId) ?? []).map((r) => [r.span_id, r]))
      group = { first: record, runs }
      groups.set(key, group)
    }
    const run = runOf(record, passThreshold)
    group.runs.set(run.span_id, run)
    group.reason = record.reason
  }
  return [...groups.values()].map(({ first, runs, reason }) =>
    aggregate(first, [...runs.values()], reason, passThreshold),
  )
}

function runOf(record: ScoreRecord, passThreshold?: PassThreshold): TraceRunScore {
  const run: TraceRunScore = { span_id: record.spanId.toLowerCase(), run_id: record.runId }
  if (record.error) {
    run.error = `${record.error.type}: ${record.error.message}`
    return run
  }
  if (record.score !== undefined && Number.isFinite(record.score)) run.score = record.score
  const label = scoreLabel(record, passThreshold)
  if (label !== undefined) run.label = label
  return run
}

function aggregate(
  first: ScoreRecord,
  unsorted: TraceRunScore[],
  reason: string | undefined,
  passThreshold?: PassThreshold,
): TraceScore {
  const runs = unsorted.sort((a, b) => a.span_id.localeCompare(b.span_id))
  const scored = runs.filter((r) => r.score !== undefined)
  const result: TraceScore = {
    traceId: first.traceId.toLowerCase(),
    scorerId: first.scorerId,
    scorerName: first.scorerName || first.scorerId,
    scorerKind: first.scorerKind,
    runs,
    count: scored.length,
  }
  if (scored.length > 0) result.score = scored.reduce((sum, r) => sum + r.score!, 0) / scored.length
  const labels = new Set(runs.filter((r) => r.error === undefined).map((r) => r.label))
  const shared = labels.size === 1 ? [...labels][0] : undefined
  const label = scoreLabel({ ...first, score: result.score, label: shared }, passThreshold)
  if (label !== undefined) result.label = label
  if (runs.length === 1) {
    const explanation = runs[0]!.error ?? reason
    if (explanation) result.explanation = explanation
  } else {
    const each = runs.map((r) => `${r.span_id}: ${r.error !== undefined ? 'failed' : (r.score ?? r.label)}`)
    const failed = runs.length - scored.length
    result.explanation =
      scored.length > 0
        ? `mean of ${scored.length} runs${failed ? ` (${failed} without a score)` : ''}: ${each.join(', ')}`
        : `no run scored: ${each.join(', ')}`
  }
  return result
}
