import type { KeptAnswer } from '../scoring/step-answers.ts'
import type { LedgerLogWrite } from './ledger-log.ts'

/**
 * Judge answers in the ledger topic. Besides one decision per (run, scorer, version), the topic
 * holds, while that decision is not made yet, one record per judge step: first that the judge is
 * being asked (with the prompt's hash), then its answer under the same key. A restarted scoring
 * of the run takes the answer instead of asking again; a request noted as asked but never
 * answered is asked again and counted as repeated. Once the decision is recorded, the run's
 * answers are dropped from memory (and skipped when loading).
 */

/** What the ledger holds of one judge step: the prompt's hash and, once received, the answer. */
export interface KeptStep {
  atMs: number
  hash: string
  /** Absent: the judge was asked and had not answered (or the answer was not kept) yet. */
  answer?: KeptAnswer
}

/** One answer record's value: the step, under which decision, and what was kept. */
export interface AnswerValue extends KeptStep {
  /** The ledger key of the (run, scorer, version) whose decision this step leads to. */
  of: string
  step: string
}

const PREFIX = 'answer:'

/** The record key of a judge step of the decision `decisionKey` (no decision key starts so: they start with a trace id). */
export function answerKey(decisionKey: string, step: string): string {
  return `${PREFIX}${decisionKey}/${step}`
}

/** True for the key of a judge step's record (else it is a decision's). */
export function isAnswerKey(key: string): boolean {
  return key.startsWith(PREFIX)
}

/** The record value of a judge step (JSON). */
export function encodeAnswerValue(value: AnswerValue): string {
  return JSON.stringify(value)
}

/** Parses a judge step's record value; undefined for one that is not. */
export function decodeAnswerValue(value: Buffer | string): AnswerValue | undefined {
  try {
    const parsed = JSON.parse(typeof value === 'string' ? value : value.toString('utf8')) as AnswerValue
    if (
      typeof parsed?.atMs !== 'number' ||
      typeof parsed.of !== 'string' ||
      typeof parsed.step !== 'string' ||
      typeof parsed.hash !== 'string'
    )
      return undefined
    return parsed
  } catch {
    return undefined
  }
}

/** Ledger writes shared by decisions and judge steps (`batchedWrites`). */
export interface BatchedWrites {
  /** Writes the records; resolves once the broker acknowledged them (acks = all). */
  write(records: readonly LedgerLogWrite[]): Promise<void>
  /**
   * Adds records to the next write without waiting for it; when none starts within `lingerMs`,
   * they go on their own then.
   */
  attach(records: readonly LedgerLogWrite[]): void
}

/**
 * Writes in batches without waiting to fill them (a group commit): a write goes out at once when
 * none is under way; the ones asked for meanwhile go together when it is acknowledged. So a judge
 * answer is kept within about one broker round trip, and many answers share one request under
 * load. Attached records ride along with the next write (at most `lingerMs` later); a record
 * followed in the same batch by one with the same partition and key is left out (the later one
 * replaces it for every reader), so a note that a request is under way costs nothing when its
 * answer comes within the linger.
 */
export function batchedWrites(
  write: (records: readonly LedgerLogWrite[]) => Promise<void>,
  lingerMs = 20,
): BatchedWrites {
  let queue: { records: readonly LedgerLogWrite[]; done: (error?: unknown) => void }[] = []
  let attached: LedgerLogWrite[] = []
  let sending = false
  let linger: NodeJS.Timeout | undefined
  const flush = async () => {
    sending = true
    while (queue.length > 0) {
      const batch = queue
      const records = [...attached, ...batch.flatMap((b) => b.records)]
      queue = []
      attached = []
      let failure: unknown
      try {
        await write(latestPerKey(records))
      } catch (error) {
        failure = error ?? new Error('ledger write failed')
      }
      for (const b of batch) b.done(failure)
    }
    sending = false
  }
  const batches: BatchedWrites = {
    write: (records) =>
      new Promise<void>((resolve, reject) => {
        queue.push({ records, done: (error) => (error === undefined ? resolve() : reject(error)) })
        if (!sending) void flush()
      }),
    attach(records) {
      attached.push(...records)
      linger ??= setTimeout(() => {
        linger = undefined
        // A failed write of notes alone is only a note lost.
        if (attached.length > 0) batches.write([]).catch(() => {})
      }, lingerMs)
      linger.unref?.()
    },
  }
  return batches
}

/** The records without those followed by one with the same partition and key, in their order. */
function latestPerKey(records: readonly LedgerLogWrite[]): LedgerLogWrite[] {
  const last = new Map<string, number>()
  records.forEach((r, i) => {
    last.set(`${r.partition}\u0000${r.key}`, i)
  })
  return last.size === records.length
    ? [...records]
    : records.filter((r, i) => last.get(`${r.partition}\u0000${r.key}`) === i)
}
