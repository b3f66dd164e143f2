import type { ScorerEntry } from '../config/schema.ts'
import type { ScoreRecord } from '../model/index.ts'
import type { Decision, DecisionOutcome } from '../scoring/score-run.ts'

/** What the ledger keeps of one (run, scorer) decision: enough to deliver its score again unchanged. */
export interface LedgerDecision {
  outcome: DecisionOutcome
  record?: ScoreRecord
  detail?: string
}

/** One ledger record's value: the decision and when it was written (for expiry). */
export interface LedgerValue {
  atMs: number
  decision: LedgerDecision
}

/** Outcomes worth recording: the scorer ran (and may have asked a judge). The others cost nothing to decide again. */
const recordedOutcomes: ReadonlySet<DecisionOutcome> = new Set(['scored', 'failed', 'not-scorable'])

/** True when the decision ran the scorer, so it goes into the ledger. */
export function isLedgered(decision: Decision): boolean {
  return recordedOutcomes.has(decision.outcome)
}

/**
 * The ledger key of a (trace, agent span, scorer id, scorer version): ids in lowercase hex as the
 * score span id takes them (`scoreSpanId`), so one key is one score span of one scorer version.
 */
export function ledgerKey(traceId: string, spanId: string, scorerId: string, version: string): string {
  return `${traceId.toLowerCase()}/${spanId.toLowerCase()}/${scorerId}/${version}`
}

/**
 * The scorer id and version of a scorer entry as the ledger keys them: the scorer's `id` (the id
 * in its score span id; the entry's name when unreadable) and the entry's `version`, else the
 * scorer's own string `version` property, else `'1'`. Never throws on a scorer's getters.
 */
export function scorerIdentity(name: string, entry: ScorerEntry): { scorerId: string; version: string } {
  const scorer = readSafely(() => entry.scorer as { id?: unknown; version?: unknown })
  const id = readSafely(() => scorer?.id)
  const own = readSafely(() => scorer?.version)
  return {
    scorerId: typeof id === 'string' ? id : name,
    version: entry.version ?? (typeof own === 'string' && own ? own : '1'),
  }
}

/** The ledger record value of a decision (JSON; the score record kept whole, its timestamp included). */
export function encodeLedgerValue(decision: Decision, atMs: number): string {
  const kept: LedgerDecision = {
    outcome: decision.outcome,
    ...(decision.record ? { record: decision.record } : {}),
    ...(decision.detail !== undefined ? { detail: decision.detail } : {}),
  }
  return JSON.stringify({ atMs, decision: kept } satisfies LedgerValue)
}

/** Parses a ledger record value; undefined for one that is not a ledger entry (logged by the caller, skipped). */
export function decodeLedgerValue(value: Buffer | string): LedgerValue | undefined {
  try {
    const parsed = JSON.parse(typeof value === 'string' ? value : value.toString('utf8')) as LedgerValue
    const outcome = parsed?.decision?.outcome
    if (typeof parsed.atMs !== 'number' || typeof outcome !== 'string' || !recordedOutcomes.has(outcome))
      return undefined
    return parsed
  } catch {
    return undefined
  }
}

function readSafely<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}
