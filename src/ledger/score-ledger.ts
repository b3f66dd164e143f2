import type { Logger } from '../ops/logger.ts'
import type { Decision } from '../scoring/score-run.ts'
import type { KeptAnswer } from '../scoring/step-answers.ts'
import {
  answerKey,
  type BatchedWrites,
  batchedWrites,
  decodeAnswerValue,
  encodeAnswerValue,
  isAnswerKey,
  type KeptStep,
} from './kept-answers.ts'
import { decodeLedgerValue, encodeLedgerValue, type LedgerDecision } from './ledger-entry.ts'
import type { LedgerLog, LedgerLogRecord } from './ledger-log.ts'

/** Settings of the score ledger. */
export interface ScoreLedgerOptions {
  log: LedgerLog
  /** Entries older than this are forgotten. */
  retentionMs: number
  /** Most entries held; past it the oldest of the partition written to are forgotten. Default unbounded. */
  maxEntries?: number
  logger: Logger
  now?: () => number
  /** Wait between attempts to read a partition's offsets while the broker does not answer. Default 1,000 ms. */
  retryMs?: number
}

/** A decision to record under its key. */
export interface LedgerWrite {
  key: string
  decision: Decision
}

/**
 * The ledger of (run, scorer) decisions, partitioned like the input: ledger partition N holds the
 * entries of runs whose records came from input partition N, so an instance keeps (and loads) only
 * the partitions it is assigned. `assign` follows the consumer's (re)assignments; `loaded`
 * resolves when a partition was read up to the end it had when it was assigned (what every
 * instance wrote before), so a run is looked up only after that.
 */
export interface ScoreLedger {
  /** The input partitions this instance owns now: the others are dropped, the listed ones (re)loaded. */
  assign(partitions: readonly number[]): void
  /** Resolves when every listed partition that is assigned has been loaded (others: at once). */
  loaded(partitions: readonly number[]): Promise<void>
  /** The recorded decision for `key` in any of the partitions the run's records came from. */
  lookup(partitions: readonly number[], key: string): LedgerDecision | undefined
  /** Writes the decisions into every partition the run's records came from; resolves when acknowledged. */
  record(partitions: readonly number[], writes: readonly LedgerWrite[]): Promise<void>
  /** What is kept of a judge step of the undecided `decisionKey`, in any of the partitions. */
  keptStep(partitions: readonly number[], decisionKey: string, step: string): KeptStep | undefined
  /**
   * Keeps a judge step in every partition the run's records came from, known to `keptStep` at
   * once. With `answer`: written in the next batch, resolves when acknowledged. Without (its
   * request was sent, this prompt hash): attached to the next write, resolves at once.
   */
  keepStep(
    partitions: readonly number[],
    decisionKey: string,
    step: string,
    hash: string,
    answer?: KeptAnswer,
  ): Promise<void>
  /** Hands records read from the ledger topic to the ledger (the log's reader calls it). */
  onRecords(partition: number, records: readonly LedgerLogRecord[]): void
  /** Forgets entries older than the retention. */
  expire(): void
  /** Entries held in memory. */
  size(): number
  /** Stops retrying reads of offsets; pending `loaded` promises stay pending. */
  stop(): void
}

/** What is held for one assigned partition. */
interface PartitionState {
  entries: Map<string, { atMs: number; decision: LedgerDecision }>
  /** Judge steps of runs not decided yet: decision key → step → what is kept. */
  answers: Map<string, Map<string, KeptStep>>
  /** Next offset to read; undefined until its offsets are known. */
  next: bigint | undefined
  /** Read up to here (exclusive) to count as loaded; undefined until known. */
  target: bigint | undefined
  done: Promise<void>
  resolve: () => void
}

/** Creates the score ledger over a ledger log (see `ScoreLedger`). */
export function createScoreLedger(options: ScoreLedgerOptions): ScoreLedger {
  const { log, logger, retentionMs } = options
  const now = options.now ?? Date.now
  const partitions = new Map<number, PartitionState>()
  // Decisions and judge steps share one group commit.
  const batches = batchedWrites((records) => log.write(records))
  let generation = 0
  let stopped = false

  const newTarget = (state: PartitionState) => {
    state.target = undefined
    state.done = new Promise<void>((resolve) => {
      state.resolve = resolve
    })
  }

  /** Forgets the oldest entries of `state` while more than `maxEntries` are held. */
  const trim = (state: PartitionState) => {
    const max = options.maxEntries ?? Infinity
    for (let excess = ledger.size() - max; excess > 0 && state.entries.size > 0; excess--)
      state.entries.delete(state.entries.keys().next().value!)
  }

  const ledger: ScoreLedger = {
    assign(assigned) {
      const gen = ++generation
      const keep = new Set(assigned)
      for (const p of partitions.keys()) if (!keep.has(p)) partitions.delete(p)
      for (const p of assigned) {
        let state = partitions.get(p)
        if (state === undefined) {
          state = {
            entries: new Map(),
            answers: new Map(),
            next: undefined,
            target: undefined,
          } as PartitionState
          partitions.set(p, state)
        }
        // Kept partitions too: another instance may have written to them since (a rejoin).
        newTarget(state)
      }
      void loadPartitions(assigned, {
        log,
        logger,
        partitions,
        current: () => gen === generation && !stopped,
        retryMs: options.retryMs ?? 1_000,
      })
    },
    async loaded(wanted) {
      await Promise.all(wanted.map((p) => partitions.get(p)?.done))
    },
    lookup(from, key) {
      for (const p of from) {
        const entry = partitions.get(p)?.entries.get(key)
        if (entry !== undefined && entry.atMs >= now() - retentionMs) return entry.decision
      }
      return undefined
    },
    async record(to, writes) {
      if (writes.length === 0 || to.length === 0) return
      const atMs = now()
      const values = writes.map((w) => ({ key: w.key, value: encodeLedgerValue(w.decision, atMs) }))
      await batches.write(to.flatMap((partition) => values.map((v) => ({ partition, ...v }))))
      // Known at once here (the follower reads them back later, unchanged).
      for (const p of to) {
        const state = partitions.get(p)
        for (const v of state ? values : []) {
          refresh(state!.entries, v.key, decodeLedgerValue(v.value)!)
          state!.answers.delete(v.key)
        }
        if (state) trim(state)
      }
    },
    ...keptSteps(partitions, batches, now, retentionMs),
    onRecords(partition, records) {
      const state = partitions.get(partition)
      if (state === undefined || records.length === 0) return
      applyRecords(state, records, now() - retentionMs, (offset) =>
        logger.warn({ partition, offset }, 'score ledger: a record that is no entry; skipped'),
      )
      trim(state)
      settleIfCaughtUp(state)
    },
    expire() {
      const oldest = now() - retentionMs
      for (const state of partitions.values()) expireState(state, oldest)
    },
    size() {
      let n = 0
      for (const state of partitions.values()) n += state.entries.size
      return n
    },
    stop() {
      stopped = true
    },
  }
  return ledger
}

/**
 * Applies records read from a partition (in offset order) to its entries: a value sets its key,
 * a tombstone, an expired entry or a record that is no entry (`onInvalid`) removes it; records
 * before the partition's read position (read again after a seek) are skipped.
 */
function applyRecords(
  state: PartitionState,
  records: readonly LedgerLogRecord[],
  oldestMs: number,
  onInvalid: (offset: string) => void,
): void {
  for (const record of records) {
    if (state.next !== undefined && BigInt(record.offset) < state.next) continue
    const key = record.key === null ? undefined : String(record.key)
    if (key !== undefined && isAnswerKey(key)) applyStep(state, record, oldestMs, onInvalid)
    else if (key !== undefined) {
      const value = record.value === null ? undefined : decodeLedgerValue(record.value)
      if (value === undefined || value.atMs < oldestMs) state.entries.delete(key)
      else refresh(state.entries, key, value)
      // A decision made: its run's judge steps are not needed any more.
      state.answers.delete(key)
      if (record.value !== null && value === undefined) onInvalid(record.offset)
    }
    state.next = BigInt(record.offset) + 1n
  }
}

/** Forgets the entries and judge steps of a partition written before `oldest`. */
function expireState(state: PartitionState, oldest: number): void {
  for (const [key, entry] of state.entries) if (entry.atMs < oldest) state.entries.delete(key)
  for (const [key, steps] of state.answers) {
    for (const [step, kept] of steps) if (kept.atMs < oldest) steps.delete(step)
    if (steps.size === 0) state.answers.delete(key)
  }
}

/**
 * The judge steps part of the ledger (`keptStep`, `keepStep`): held per partition beside the
 * decisions, written in batches (`batchedWrites`) so that many answers share one broker request.
 */
function keptSteps(
  partitions: ReadonlyMap<number, PartitionState>,
  writes: BatchedWrites,
  now: () => number,
  retentionMs: number,
): Pick<ScoreLedger, 'keptStep' | 'keepStep'> {
  return {
    keptStep(from, decisionKey, step) {
      for (const p of from) {
        const kept = partitions.get(p)?.answers.get(decisionKey)?.get(step)
        if (kept !== undefined && kept.atMs >= now() - retentionMs) return kept
      }
      return undefined
    },
    async keepStep(to, decisionKey, step, hash, answer) {
      if (to.length === 0) return
      const kept: KeptStep = { atMs: now(), hash, ...(answer !== undefined ? { answer } : {}) }
      for (const p of to) {
        const state = partitions.get(p)
        if (state !== undefined) setStep(state, decisionKey, step, kept)
      }
      const key = answerKey(decisionKey, step)
      const value = encodeAnswerValue({ ...kept, of: decisionKey, step })
      const records = to.map((partition) => ({ partition, key, value }))
      // A request under way is noted with the next write (no broker request of its own); an answer is waited for.
      if (answer === undefined) writes.attach(records)
      else await writes.write(records)
    },
  }
}

/** Applies a judge step's record, unless its run is decided already (or it expired, or is a tombstone). */
function applyStep(
  state: PartitionState,
  record: LedgerLogRecord,
  oldestMs: number,
  onInvalid: (offset: string) => void,
): void {
  if (record.value === null) return
  const value = decodeAnswerValue(record.value)
  if (value === undefined) {
    onInvalid(record.offset)
    return
  }
  if (value.atMs < oldestMs || state.entries.has(value.of)) return
  const { of, step, ...kept } = value
  setStep(state, of, step, kept)
}

/** Sets what is kept of a judge step of an undecided run. */
function setStep(state: PartitionState, decisionKey: string, step: string, kept: KeptStep): void {
  let steps = state.answers.get(decisionKey)
  if (steps === undefined) {
    steps = new Map()
    state.answers.set(decisionKey, steps)
  }
  steps.set(step, kept)
}

/** Resolves the partition's `loaded` promise once it was read up to its target. */
function settleIfCaughtUp(state: PartitionState): void {
  if (state.next !== undefined && state.target !== undefined && state.next >= state.target) state.resolve()
}

/**
 * Reads the assigned partitions' offsets (retrying while the broker does not answer, as long as
 * this assignment is `current`), sets each one's target to its end, and has the log follow them
 * from where each was read (or its beginning).
 */
async function loadPartitions(
  assigned: readonly number[],
  ctx: {
    log: LedgerLog
    logger: Logger
    partitions: ReadonlyMap<number, PartitionState>
    current: () => boolean
    retryMs: number
  },
): Promise<void> {
  for (let attempt = 0; ctx.current(); attempt++) {
    try {
      const offsets = await ctx.log.offsets(assigned)
      if (!ctx.current()) return
      const from = new Map<number, string>()
      for (const p of assigned) {
        const state = ctx.partitions.get(p)
        const bounds = offsets.get(p)
        if (state === undefined || bounds === undefined) continue
        const low = BigInt(bounds.low)
        if (state.next === undefined || state.next < low) state.next = low
        state.target = BigInt(bounds.high)
        from.set(p, String(state.next))
        settleIfCaughtUp(state)
      }
      ctx.log.follow(from)
      return
    } catch (error) {
      if (attempt % 10 === 0)
        ctx.logger.warn({ err: error, attempt }, 'score ledger: reading its offsets failed; retrying')
      await new Promise((r) => setTimeout(r, ctx.retryMs))
    }
  }
}

/** Sets an entry as the newest of its map (maps keep insertion order: the first is the oldest). */
function refresh<V>(entries: Map<string, V>, key: string, value: V): void {
  entries.delete(key)
  entries.set(key, value)
}
