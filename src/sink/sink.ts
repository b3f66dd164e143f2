import type { ScoreRecord } from '../model/index.ts'

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
}
