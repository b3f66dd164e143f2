import type { Logger } from '../ops/logger.ts'
import type { CommitOffset } from './consumer-port.ts'
import type { OffsetTracker } from './offset-tracker.ts'

/** Settings of the offset committer. */
interface OffsetCommitterOptions {
  tracker: OffsetTracker
  /** Commits to the group (the consumer port's `commit`). */
  commit(offsets: readonly CommitOffset[]): Promise<void>
  /** Least time between two interval commits. */
  intervalMs: number
  /**
   * A commit not settled after this long counts as failed, so one that never settles (a broker
   * that went away mid-request) cannot stop all later commits. Default 60,000.
   */
  timeoutMs?: number
  logger: Logger
  now: () => number
}

/** Commits the tracker's finished offsets, one commit at a time. */
export interface OffsetCommitter {
  /** Commits when the interval has passed since the last commit. */
  tick(): void
  /**
   * Commits at once when every record read is finished (the source caught up: nothing buffered,
   * queued or in flight) and an offset moved, rather than at the next interval; at most once an
   * interval besides the interval's own commits, and never when interval commits are off.
   */
  whenCaughtUp(): void
  /** Commits now (after the commit in progress, if any). Never rejects: a failure is logged and retried later. */
  commitNow(): Promise<void>
  /**
   * Stops waiting for the commit in progress (the consumer it went through was replaced or
   * rejoined its group; its answer may never come): the next commit starts at once.
   */
  forgetInProgress(): void
  commits(): number
}

/** Creates the committer: offsets move only below records whose every trace is done (the tracker's rule). */
export function createOffsetCommitter(options: OffsetCommitterOptions): OffsetCommitter {
  const { tracker, logger, now } = options
  const timeoutMs = options.timeoutMs ?? 60_000
  let inProgress: Promise<void> | undefined
  let lastMs = now()
  let lastCaughtUpMs = Number.NEGATIVE_INFINITY
  let commits = 0

  const commitOnce = async (): Promise<void> => {
    const offsets = tracker.committable()
    if (offsets.length === 0) return
    let timer: NodeJS.Timeout | undefined
    try {
      await Promise.race([
        options.commit(offsets),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`commit not answered after ${timeoutMs} ms`)), timeoutMs)
        }),
      ])
      tracker.committed(offsets)
      commits++
    } catch (error) {
      logger.warn({ err: error, offsets }, 'offset commit failed; retried on the next interval')
    } finally {
      clearTimeout(timer)
    }
  }

  const commitNow = (): Promise<void> => {
    const previous = inProgress ?? Promise.resolve()
    const next = previous.then(commitOnce).finally(() => {
      lastMs = now()
      if (inProgress === next) inProgress = undefined
    })
    inProgress = next
    return next
  }

  return {
    tick() {
      if (inProgress === undefined && now() - lastMs >= options.intervalMs) void commitNow()
    },
    whenCaughtUp() {
      if (inProgress !== undefined || !Number.isFinite(options.intervalMs)) return
      if (now() - lastCaughtUpMs < options.intervalMs || tracker.pendingRecords() > 0) return
      if (tracker.committable().length === 0) return
      lastCaughtUpMs = now()
      void commitNow()
    },
    commitNow,
    forgetInProgress() {
      inProgress = undefined
    },
    commits: () => commits,
  }
}
