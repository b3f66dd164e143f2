import type { ScoreRecord } from '../model/index.ts'

/** Delivery counters every sink reports the same way, for metrics. */
export interface SinkStats {
  /** Records the destination acknowledged. */
  delivered: number
  /** Records of deliveries that were given up after the retry budget. */
  failed: number
  /** Retry attempts made (not counting first attempts). */
  retries: number
  /** Records a sink had nothing to write for (e.g. a failed scoring for a score-only API). */
  skipped: number
}

/**
 * A destination for scores. `deliver` resolves only when the destination has acknowledged every
 * record (the pipeline commits Kafka offsets after that) and rejects when it could not, after its
 * own retries; the pipeline then holds the offsets and tries again later.
 */
export interface Sink {
  readonly name: string
  deliver(records: ScoreRecord[]): Promise<void>
  /** Flushes and releases resources. */
  close(): Promise<void>
  /** Delivery counters since the sink was created (every sink in `src/sink` has them). */
  stats?(): SinkStats
}

/** A sink that always reports its delivery counters (every factory in `src/sink` returns one). */
export interface CountingSink extends Sink {
  stats(): SinkStats
}
