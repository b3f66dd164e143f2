import type { RunFilter, ScorerEntry } from '../config/schema.ts'
import {
  type AgentRun,
  type JudgeUsage,
  type RunPart,
  type ScoreRecord,
  unrecordedParts,
} from '../model/index.ts'
import { withTraceContentFencing } from './fence-untrusted.ts'
import { currentJudge, type Judge, withJudge } from './judge.ts'
import { createRedactor, redactDeep } from './redact.ts'
import { describeUnrecorded, requiredParts } from './required-parts.ts'
import { isSampled } from './sampling.ts'
import { type StepAnswers, withStepAnswers } from './step-answers.ts'
import type { BudgetReservation } from './token-budget.ts'

/** What happened to one (agent run, scorer) pair. */
export type DecisionOutcome =
  | 'scored'
  | 'sampled-out'
  | 'filtered'
  | 'not-scorable'
  | 'skipped-budget'
  | 'failed'

/** The decision for one (agent run, scorer) pair; `record` goes to the sinks when there is one. */
export interface Decision {
  traceId: string
  spanId: string
  scorer: string
  outcome: DecisionOutcome
  record?: ScoreRecord
  /** For not-scorable runs: the reason the scorer gave, or the parts the trace did not record. */
  detail?: string
  /** Not scorable because the trace did not record these parts, which the scorer needs (no judge call made). */
  unrecorded?: RunPart[]
  /** How long this scorer took on this run, in milliseconds, when it ran (judge calls included). */
  durationMs?: number
}

/** What `scoreRun` needs from around it. */
export interface ScoreRunDeps {
  /** The judge to score with (its daily token budgets included); default: the one in scope, else the default. */
  judge?: Judge
  /** Wall clock of the score records (epoch milliseconds); default `Date.now`. */
  now?: () => number
  /** Monotonic milliseconds for `durationMs`; default `performance.now`. */
  clock?: () => number
  /**
   * The kept judge answers of a (run, scorer), from the score ledger: the scorer's judge steps
   * take an answer kept for the same prompt instead of asking, and keep each new one. Absent or
   * undefined: every step asks.
   */
  answers?: (run: AgentRun, name: string, entry: ScorerEntry) => StepAnswers | undefined
}

/** True when the run matches every criterion of the filter (a throwing predicate never matches). */
export function matchesFilter(run: AgentRun, filter: RunFilter | undefined): boolean {
  if (!filter) return true
  if (filter.agentNames && !filter.agentNames.includes(run.agentName ?? '')) return false
  if (filter.agentIds && !filter.agentIds.includes(run.agentId ?? '')) return false
  if (filter.services && !filter.services.includes(serviceOf(run) ?? '')) return false
  if (filter.conventions && !filter.conventions.includes(run.convention)) return false
  if (filter.status && filter.status !== run.status) return false
  if (filter.where) {
    try {
      if (!filter.where(run)) return false
    } catch {
      return false
    }
  }
  return true
}

function serviceOf(run: AgentRun): string | undefined {
  const ctx = run.requestContext ?? {}
  const value = ctx['service.name'] ?? ctx.serviceName
  return typeof value === 'string' ? value : undefined
}

function mustScore(run: AgentRun, entry: ScorerEntry): boolean {
  const always = entry.alwaysScore
  if (!always) return false
  return (
    (always.errors === true && run.status === 'error') ||
    (always.agentNames?.includes(run.agentName ?? '') ?? false)
  )
}

/** Sums the judge usage a scorer result reports (Mastra's `judge` record: step → executions). */
export function judgeUsageOf(result: unknown): JudgeUsage | undefined {
  const judge = (result as { judge?: Record<string, { executions?: any[] }> } | undefined)?.judge
  if (!judge || typeof judge !== 'object') return undefined
  const usage: JudgeUsage = { calls: 0 }
  for (const step of Object.values(judge)) {
    for (const execution of step?.executions ?? []) {
      usage.calls += execution.modelCallCount ?? execution.attemptCount ?? 1
      usage.model ??= execution.judgeModelId
      const u = execution.usage ?? {}
      if (typeof u.inputTokens === 'number') usage.inputTokens = (usage.inputTokens ?? 0) + u.inputTokens
      if (typeof u.outputTokens === 'number') usage.outputTokens = (usage.outputTokens ?? 0) + u.outputTokens
      const total = u.totalTokens ?? (u.inputTokens ?? 0) + (u.outputTokens ?? 0)
      if (typeof total === 'number') usage.totalTokens = (usage.totalTokens ?? 0) + total
    }
  }
  return usage.calls > 0 ? usage : undefined
}

/** A stable run id for a (trace, agent span) pair, so replays score under the same id. */
export function runIdOf(run: AgentRun): string {
  return `${run.traceId}-${run.spanId}`
}

/**
 * Runs every registered scorer that applies to the run and returns one decision per scorer:
 * filter first (fail closed), then the always-score rules, then deterministic sampling, then
 * the daily token budget. Never rejects: whatever throws for one scorer (the scorer, its
 * redaction, a filter, a getter of the entry) gives that scorer a `failed` decision with an
 * error record, so one run or one scorer can never stall a partition or a command.
 */
export async function scoreRun(
  run: AgentRun,
  entries: Record<string, ScorerEntry>,
  deps: ScoreRunDeps = {},
): Promise<Decision[]> {
  return Promise.all(Object.entries(entries).map(([name, entry]) => decide(run, name, entry, deps)))
}

type AnyScorer = { id: string; name?: string; run: (input: any, options?: { judge: Judge }) => Promise<any> }

/** The decision for one (run, scorer) pair. */
async function decide(
  run: AgentRun,
  name: string,
  entry: ScorerEntry,
  deps: ScoreRunDeps,
): Promise<Decision> {
  const now = deps.now ?? Date.now
  const judge = deps.judge ?? currentJudge()
  const clock = deps.clock ?? (() => performance.now())
  const base = { traceId: run.traceId, spanId: run.spanId, scorer: name }
  let reservation: BudgetReservation | undefined
  let record: ScoreRecord | undefined
  let started: number | undefined
  const timed = () => (started === undefined ? {} : { durationMs: Math.max(0, clock() - started) })
  try {
    if (!matchesFilter(run, entry.filter)) return { ...base, outcome: 'filtered' }
    if (!mustScore(run, entry) && !isSampled(entry.sampling, run.traceId))
      return { ...base, outcome: 'sampled-out' }
    // Never score what was not captured: a judge asked about empty text, or a 0 for an answer
    // nobody recorded, would be a false alarm.
    const unrecorded = unrecordedParts(run, requiredParts(entry))
    if (unrecorded.length > 0)
      return { ...base, outcome: 'not-scorable', detail: describeUnrecorded(unrecorded), unrecorded }
    const claim = judge.budget ? await judge.budget.reserve(name) : undefined
    if (claim?.outcome === 'exhausted') return { ...base, outcome: 'skipped-budget' }
    if (claim?.outcome === 'reserved') reservation = claim.reservation

    const scorer = entry.scorer as AnyScorer
    record = newRecord(run, name, entry)
    started = clock()
    const visible = entry.redact ? redactDeep(run, createRedactor(entry.redact)) : run
    const input = {
      runId: record.runId,
      input: visible.input,
      output: visible.output,
      requestContext: visible.requestContext,
      ...(run.recorded ? { recorded: run.recorded } : {}),
    }
    // The judge goes to tracescore's scorers as an option and, for scorers that call their models
    // themselves (`judgeModel()`), into the async context; a scorer that takes no options ignores it.
    const answers = deps.answers?.(run, name, entry)
    const result = await withJudge(judge, () =>
      withStepAnswers(answers, () =>
        withTraceContentFencing(entry.fenceTraceContent !== false, () => scorer.run(input, { judge })),
      ),
    )
    const duration = timed()
    record.timestampMs = now()
    const usage = judgeUsageOf(result)
    if (usage) {
      record.judge = usage
      record.scorerKind = 'llm'
    }
    if (result?.notScorable !== undefined) {
      const reason = result.notScorable?.reason
      return { ...base, outcome: 'not-scorable', ...(reason ? { detail: String(reason) } : {}), ...duration }
    }
    if (typeof result?.score !== 'number' || !Number.isFinite(result.score)) {
      throw new TypeError(
        `scorer ${record.scorerId} returned a non-numeric score: ${JSON.stringify(result?.score)}`,
      )
    }
    record.score = result.score
    if (typeof result.reason === 'string') record.reason = result.reason
    if (typeof result.label === 'string') record.label = result.label
    return { ...base, outcome: 'scored', record, ...duration }
  } catch (error) {
    const duration = timed()
    record ??= newRecord(run, name, entry)
    record.timestampMs = now()
    const partialJudge = judgeUsageOf(readSafely(() => (error as { result?: unknown }).result))
    if (partialJudge) {
      record.judge = partialJudge
      record.scorerKind = 'llm'
    }
    record.error = describeError(error)
    return { ...base, outcome: 'failed', record, ...duration }
  } finally {
    if (reservation) judge.budget?.settle(reservation, record?.judge?.totalTokens ?? 0)
  }
}

/** The score record of a (run, scorer) pair before scoring; the scorer's id and name read without trusting its getters. */
function newRecord(run: AgentRun, name: string, entry: ScorerEntry): ScoreRecord {
  const scorer = readSafely(() => entry.scorer as AnyScorer)
  const id = readSafely(() => scorer?.id)
  const scorerId = typeof id === 'string' ? id : name
  const scorerName = readSafely(() => scorer?.name)
  const sampling = readSafely(() => entry.sampling)
  return {
    traceId: run.traceId,
    spanId: run.spanId,
    runId: runIdOf(run),
    agentName: run.agentName,
    agentId: run.agentId,
    scorerId,
    scorerName: typeof scorerName === 'string' ? scorerName : scorerId,
    scorerKind: 'code',
    samplingRate: sampling?.type === 'ratio' ? sampling.rate : 1,
    timestampMs: 0,
    ...(run.incomplete ? { incomplete: true } : {}),
  }
}

/** The error record of a failed scoring: its type and message, whatever was thrown. */
function describeError(error: unknown): { type: string; message: string } {
  const name = readSafely(() => (error as Error | undefined)?.name)
  const message = readSafely(() => (error as Error | undefined)?.message)
  return {
    type: typeof name === 'string' && name ? name : 'Error',
    message: typeof message === 'string' ? message : (readSafely(() => String(error)) ?? 'unknown error'),
  }
}

/** A value read from user-supplied objects, or undefined when reading it throws. */
function readSafely<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}
