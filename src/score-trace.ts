import type { ScorerEntry } from './config/schema.ts'
import {
  type AgentRun,
  type Convention,
  type ScoreRecord,
  type Span,
  unrecordedParts,
} from './model/index.ts'
import type { Metrics } from './ops/metrics.ts'
import type { Judge } from './scoring/judge.ts'
import { type Decision, type ScoreRunDeps, scoreRun } from './scoring/score-run.ts'
import { extractAgentRuns } from './transform/index.ts'
import { type NoRunReason, whyNoRun } from './transform/trace-gaps.ts'

/** What scoring one trace produced: its agent runs, every decision, and the records for the sinks. */
export interface TraceScores {
  runs: AgentRun[]
  decisions: Decision[]
  records: ScoreRecord[]
  /** Set when the trace's agent runs could not be rebuilt at all: nothing was scored, and why. */
  error?: string
  /** Set when the trace gave no run (it was transformed because it shows GenAI activity): why. */
  noRun?: { reason: NoRunReason; conventions: (Convention | 'unknown')[] }
}

/** Everything `scoreTrace` needs besides the spans. */
export interface ScoreTraceOptions {
  scorers: Record<string, ScorerEntry>
  /** The judge to score with, daily token budgets included (`judgeFromConfig`). */
  judge?: Judge
  metrics?: Metrics
  now?: () => number
  /** Monotonic milliseconds for the scoring durations; default `performance.now`. */
  clock?: () => number
  /**
   * Runs already scored by an earlier release of the trace (their head span ids): not scored
   * again. Every other run the transform finds is scored, whatever span heads it.
   */
  scoredRunSpanIds?: readonly string[]
  /** The trace was finalized by age or by the buffer cap: its runs are flagged incomplete. */
  incomplete?: boolean
  /**
   * A decision already made for this (run, scorer), from the score ledger: it is returned as it
   * is, and the scorer is not run (no judge call, nothing counted again). Undefined: score it.
   */
  recorded?: (run: AgentRun, name: string, entry: ScorerEntry) => Decision | undefined
  /** The judge answers kept for a (run, scorer), from the score ledger (see `ScoreRunDeps.answers`). */
  answers?: ScoreRunDeps['answers']
}

/**
 * Transform + scoring for one assembled trace: finds its agent runs and runs every scorer on each.
 * Never rejects on account of the trace's content: a scorer that fails gives a `failed` decision
 * (see `scoreRun`), and a trace whose runs cannot be rebuilt comes back with no runs and `error`.
 */
export async function scoreTrace(spans: Span[], options: ScoreTraceOptions): Promise<TraceScores> {
  let runs: AgentRun[]
  try {
    // Runs scored by an earlier release are not rebuilt at all, only left out.
    runs = extractAgentRuns(spans, { skipRunSpanIds: options.scoredRunSpanIds })
  } catch (error) {
    return {
      runs: [],
      decisions: [],
      records: [],
      error: `agent runs could not be rebuilt: ${messageOf(error)}`,
    }
  }
  if (options.incomplete) for (const run of runs) run.incomplete = true
  const { metrics } = options
  // No silent gaps: a GenAI trace without a run, and runs with parts not recorded, are counted.
  const noRun = runs.length === 0 && !options.scoredRunSpanIds?.length ? whyNoRun(spans) : undefined
  if (noRun && metrics) {
    for (const convention of noRun.conventions)
      metrics.tracesWithoutRuns.inc({ reason: noRun.reason, convention })
  }
  const perRun = await Promise.all(
    runs.map(async (run) => {
      metrics?.runs.inc({ agent: run.agentName ?? 'unknown', convention: run.convention })
      for (const part of unrecordedParts(run))
        metrics?.unrecordedParts.inc({ part, convention: run.convention })
      const { judge, now, clock, answers } = options
      const { fresh, recorded } = splitRecorded(run, options)
      const decisions = await scoreRun(run, fresh, { judge, now, clock, answers })
      for (const d of decisions) {
        metrics?.decisions.inc({ scorer: d.scorer, outcome: d.outcome })
        if (d.outcome === 'not-scorable')
          metrics?.notScorable.inc({ scorer: d.scorer, cause: d.unrecorded?.[0] ?? 'scorer' })
        // Each scorer's own time: scorers of a run go in parallel, the slowest must not time the rest.
        if ((d.outcome === 'scored' || d.outcome === 'failed') && d.durationMs !== undefined)
          metrics?.scoringSeconds.observe({ scorer: d.scorer }, d.durationMs / 1000)
        const r = d.record
        if (r?.score !== undefined)
          metrics?.scoreValues.observe({ scorer: d.scorer, agent: r.agentName ?? 'unknown' }, r.score)
        if (r?.judge) {
          const labels = { scorer: d.scorer, model: r.judge.model ?? 'unknown' }
          metrics?.judgeCalls.inc(labels, r.judge.calls)
          if (r.judge.totalTokens) metrics?.judgeTokens.inc(labels, r.judge.totalTokens)
        }
      }
      if (recorded.size === 0) return decisions
      // In the scorers' order, whether recorded or scored now.
      const byName = new Map(decisions.map((d) => [d.scorer, d]))
      return Object.keys(options.scorers).flatMap((name) => recorded.get(name) ?? byName.get(name) ?? [])
    }),
  )
  const decisions = perRun.flat()
  const records = decisions.flatMap((d) => (d.record ? [d.record] : []))
  return { runs, decisions, records, ...(noRun ? { noRun } : {}) }
}

/** The scorer entries to run on `run`, and the decisions `options.recorded` already has. */
function splitRecorded(run: AgentRun, options: ScoreTraceOptions) {
  const recorded = new Map<string, Decision>()
  if (options.recorded === undefined) return { fresh: options.scorers, recorded }
  const fresh: Record<string, ScorerEntry> = {}
  for (const [name, entry] of Object.entries(options.scorers)) {
    const known = options.recorded(run, name, entry)
    if (known) recorded.set(name, known)
    else fresh[name] = entry
  }
  return { fresh, recorded }
}

function messageOf(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return 'unknown error'
  }
}

/** Re-exported for the public API (src/index.ts); the one implementation is in src/model. */
export { groupByTrace } from './model/index.ts'
