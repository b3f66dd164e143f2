/**
 * The seam between the score ledger and its compacted Kafka topic: what the ledger needs from the
 * topic, nothing more. `kafka-ledger-log.ts` implements it over kafkajs, `testing/memory-ledger-log.ts`
 * in memory, so the ledger's logic is tested with plain data.
 */

/** A record read from the ledger topic (a null value is a tombstone). */
export interface LedgerLogRecord {
  offset: string
  key: Buffer | string | null
  value: Buffer | string | null
}

/** A record to write: its partition is chosen by the ledger (the input partition the run came from). */
export interface LedgerLogWrite {
  partition: number
  key: string
  value: string
}

/** The ledger topic as the ledger uses it. */
export interface LedgerLog {
  /** The first and the next-to-write offsets of each partition asked for. */
  offsets(partitions: readonly number[]): Promise<Map<number, { low: string; high: string }>>
  /**
   * Reads exactly these partitions from these offsets on (and keeps following them), handing
   * their records to `onRecords` in offset order; partitions not listed are not read.
   */
  follow(from: ReadonlyMap<number, string>): void
  /** Writes the records; resolves once the broker acknowledged all of them (acks = all). */
  write(records: readonly LedgerLogWrite[]): Promise<void>
}

/** Where a ledger log hands what it reads. */
export type LedgerRecordsHandler = (partition: number, records: readonly LedgerLogRecord[]) => void
