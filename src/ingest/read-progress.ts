import { configDefaults } from '../config/defaults.ts'
import type { Logger } from '../ops/logger.ts'
import type { ConsumerPort } from './consumer-port.ts'
import { PartitionWatermark } from './partition-watermark.ts'

/** What the span source knows of how far its consumer read, and how it keeps partitions in step. */
export interface ReadProgress {
  /** The event-time watermark of the partitions read (the record reader advances it). */
  readonly watermark: PartitionWatermark
  /** For the assembler: the watermark, undefined while a full buffer holds reading paused. */
  watermarkNow(): number | undefined
  /** For the assembler: the watermark while every partition lags (`PartitionWatermark.backlog`), undefined while a full buffer holds reading paused. */
  backlogWatermarkNow(): number | undefined
  /** For the assembler: what the fetches proved read, undefined while a full buffer holds reading paused. */
  readThroughNow(): number | undefined
  /** The consumer starts: nothing written after now counts as read until its fetches prove it. */
  started(): void
  /** The consumer's fetches proved every record written before `epochMs` read (`onReadThrough`). */
  readThrough(epochMs: number): void
  /** Holds back the partitions read too far ahead of the watermark, and lets caught-up ones go (each tick). */
  align(): void
  /** Partitions held back now. */
  heldPartitions(): number
}

/**
 * The settling inputs of a span source and its watermark alignment. Settling follows two
 * proofs of what was read: the event-time watermark (partitions advancing unevenly) and the
 * consumer's fetches (the quiet period of a trace runs only while reading goes on, see
 * FetchCycles). Both are ignored while a full buffer holds reading paused (no partition can
 * advance then, and traces would wait for maxTraceAgeMs).
 *
 * Alignment: in a backlog, partitions are read at different speeds. Traces of a partition read
 * ahead wait for the watermark (the slowest partition), so reading on would only buffer them, and
 * the slowest partition would fall further behind while the others take the fetches. A partition
 * more than `alignWindowMs` of record time past the watermark is held back (the consumer stops
 * fetching it) until it is within half that, so the slowest one gets the fetches and the buffer
 * holds about a window of traffic. Live traffic (every partition read to its end) has no
 * watermark, and nothing is held. A watermark that has not moved for `stuckAfterMs` holds nothing
 * back (reading everything on, as without alignment): its partition may have stopped yielding
 * batches without being read to its end (kafkajs hands over no batch of control records alone),
 * or reading is paused; holding the others then would stop all reading.
 */
export function createReadProgress(options: {
  consumer: ConsumerPort
  now: () => number
  logger: Logger
  /** Default 10 × `settleMs`: 20 s of record time at the defaults. */
  alignWindowMs?: number
  settleMs?: number
  /** Default 30 s. */
  stuckAfterMs?: number
  bufferFull: () => boolean
}): ReadProgress {
  const { consumer, now, logger, bufferFull } = options
  const stuckAfterMs = options.stuckAfterMs ?? 30_000
  const alignWindowMs = options.alignWindowMs ?? 10 * (options.settleMs ?? configDefaults.assembly.settleMs)
  const watermark = new PartitionWatermark()
  /**
   * Only ever later. Not reset by a rejoin or a replaced consumer: a trace's quiet period counts
   * from its last span's arrival, so an earlier proof settles nothing that arrived after it.
   */
  let throughMs: number | undefined
  let held = new Set<number>()
  /** The watermark as last seen, and when it moved to it. */
  const moves = { watermark: undefined as number | undefined, atMs: 0 }
  const stuckForMs = (current: number | undefined): number => {
    if (current !== moves.watermark) {
      moves.watermark = current
      moves.atMs = now()
    }
    return current === undefined ? 0 : now() - moves.atMs
  }
  return {
    watermark,
    watermarkNow: () => (bufferFull() ? undefined : watermark.current()),
    backlogWatermarkNow: () => (bufferFull() ? undefined : watermark.backlog()),
    readThroughNow: () => (bufferFull() ? undefined : throughMs),
    started() {
      if (consumer.reportsReadThrough) throughMs ??= now()
    },
    readThrough(epochMs) {
      if (throughMs === undefined || epochMs > throughMs) throughMs = epochMs
    },
    align() {
      if (consumer.holdBack === undefined) return
      const stuck = stuckForMs(watermark.current()) > stuckAfterMs
      const ahead = stuck ? [] : watermark.ahead(alignWindowMs, held)
      if (ahead.length === held.size && ahead.every((p) => held.has(p))) return
      const behind = watermark.laggards()
      if (held.size === 0)
        logger.info(
          { held: ahead, behind, alignWindowMs },
          'partitions read ahead of the slowest one by more than the alignment window are held back until it catches up',
        )
      else if (stuck)
        logger.warn(
          { behind, stuckAfterMs },
          'the slowest partitions did not advance: no partition is held back until they do',
        )
      else if (ahead.length === 0) logger.info('every partition caught up: none held back')
      held = new Set(ahead)
      consumer.holdBack(ahead)
    },
    heldPartitions: () => held.size,
  }
}
