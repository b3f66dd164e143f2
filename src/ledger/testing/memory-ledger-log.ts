/**
 * An in-memory ledger topic implementing `LedgerLog`, for unit tests of the score ledger: records
 * per partition (offset = index, gaps after `compact`), followed partitions delivered in batches
 * on the next macrotask as the kafkajs reader would, writes that can be made to fail.
 */
import type { LedgerLog, LedgerLogRecord, LedgerLogWrite, LedgerRecordsHandler } from '../ledger-log.ts'

/** The in-memory topic, and one reader of it. */
export interface MemoryLedgerLog extends LedgerLog {
  /** Records of a partition as stored (after compaction: the latest per key). */
  records(partition: number): readonly LedgerLogRecord[]
  /** Keeps only the latest record of each key (Kafka's log compaction). */
  compact(): void
  /** The next `n` writes reject. */
  failWrites(n: number): void
  /** Partitions followed now, and from where each was last asked to be read. */
  readonly following: ReadonlyMap<number, string>
  /** Records delivered to the handler so far (what the reader loaded). */
  delivered(): number
  /** Waits until every followed partition was delivered to its end. */
  settled(): Promise<void>
  /** A new reader (a restarted process): what it follows goes to `onRecords`. */
  start(onRecords: LedgerRecordsHandler): Promise<void>
}

/** Creates the topic; `handler` receives what is followed (the ledger's `onRecords`). */
export function createMemoryLedgerLog(
  partitionCount: number,
  initialHandler?: () => LedgerRecordsHandler,
): MemoryLedgerLog {
  let handler = initialHandler ?? (() => () => {})
  const parts: LedgerLogRecord[][] = Array.from({ length: partitionCount }, () => [])
  const next = new Map<number, number>() // offset numbers; records keep their offsets after compaction
  const following = new Map<number, string>()
  let failing = 0
  let delivered = 0
  let pending: Promise<void> = Promise.resolve()

  const pump = () => {
    pending = new Promise<void>((resolve) =>
      setTimeout(() => {
        for (const [p, from] of next) {
          const batch = parts[p]!.filter((r) => Number(r.offset) >= from)
          if (batch.length === 0) continue
          next.set(p, Number(batch.at(-1)!.offset) + 1)
          delivered += batch.length
          handler()(p, batch)
        }
        resolve()
      }, 0),
    )
  }
  const endOf = (p: number) => (parts[p]!.length === 0 ? 0 : Number(parts[p]!.at(-1)!.offset) + 1)

  return {
    async offsets(partitions) {
      return new Map(
        partitions.map((p) => [
          p,
          { low: String(parts[p]![0] ? Number(parts[p]![0].offset) : endOf(p)), high: String(endOf(p)) },
        ]),
      )
    },
    follow(from) {
      next.clear()
      following.clear()
      for (const [p, offset] of from) {
        next.set(p, Number(offset))
        following.set(p, offset)
      }
      pump()
    },
    async write(records: readonly LedgerLogWrite[]) {
      if (failing > 0) {
        failing--
        throw new Error('ledger write failed (injected)')
      }
      for (const r of records) {
        if (r.partition >= partitionCount) throw new Error(`no partition ${r.partition}`)
        parts[r.partition]!.push({ offset: String(endOf(r.partition)), key: r.key, value: r.value })
      }
      pump()
    },
    records: (p) => parts[p]!,
    compact() {
      for (let p = 0; p < partitionCount; p++) {
        const latest = new Map<string, LedgerLogRecord>()
        for (const r of parts[p]!) latest.set(String(r.key), r)
        const end = endOf(p)
        parts[p] = [...latest.values()].sort((a, b) => Number(a.offset) - Number(b.offset))
        // Kafka keeps the log end offset when compaction removes the last records.
        if (parts[p]!.length === 0 && end > 0)
          parts[p]!.push({ offset: String(end - 1), key: null, value: null })
      }
    },
    failWrites(n) {
      failing = n
    },
    following,
    delivered: () => delivered,
    async start(onRecords) {
      handler = () => onRecords
      next.clear()
      following.clear()
    },
    settled: async () => {
      for (let i = 0; i < 5; i++) await pending
    },
  }
}
