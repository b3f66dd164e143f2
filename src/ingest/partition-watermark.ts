/** What is known of one partition: the latest record time read from it, and whether it was read to its end. */
interface PartitionProgress {
  latestMs: number
  /** True when the last batch read from it reached its high watermark: nothing was left unread. */
  idle: boolean
}

/**
 * The event-time watermark of the partitions a member reads: the lowest of their latest record
 * times (Kafka record timestamps), idle partitions excepted. A partition is **idle** when the last
 * batch read from it reached the partition's high watermark as that fetch reported it (nothing
 * was left to read then), or when no time is known of it (never read, no timestamps): it holds
 * nothing back, since every record it had was read. A partition that lags (records left unread
 * behind its batch, e.g. throttled or read more slowly than the others) is not idle, and holds
 * the watermark at the time of the last record read from it. With every partition idle there is
 * no watermark: the traffic is live, and the wall clock alone settles traces.
 * Pure and synchronous: it knows only what it is told.
 */
export class PartitionWatermark {
  private readonly partitions = new Map<number, PartitionProgress>()
  /** The partitions assigned (`assign`); undefined until told. */
  private assigned: ReadonlySet<number> | undefined

  /**
   * Notes a batch read from `partition`: the latest record time in it (undefined when its records
   * carry none) and whether reading reached the partition's end (the high watermark of the fetch).
   */
  advance(partition: number, latestMs: number | undefined, readToEnd: boolean): void {
    const known = this.partitions.get(partition)
    if (known === undefined) {
      if (latestMs !== undefined) this.partitions.set(partition, { latestMs, idle: readToEnd })
      return
    }
    if (latestMs !== undefined && latestMs > known.latestMs) known.latestMs = latestMs
    known.idle = readToEnd
  }

  /** Keeps only these partitions (a new assignment): revoked ones no longer hold anything back. */
  assign(partitions: readonly number[]): void {
    const kept = new Set(partitions)
    this.assigned = kept
    for (const partition of this.partitions.keys())
      if (!kept.has(partition)) this.partitions.delete(partition)
  }

  /** The watermark: the lowest latest record time of the partitions that are not idle; undefined when all are. */
  current(): number | undefined {
    let lowest: number | undefined
    for (const { latestMs, idle } of this.partitions.values()) {
      if (!idle && (lowest === undefined || latestMs < lowest)) lowest = latestMs
    }
    return lowest
  }

  /**
   * The watermark while every partition assigned lags (none read to its end, each read at least
   * once): a backlog, where each partition's records are read in the order they were written and
   * more are known to follow. Undefined otherwise (some partition caught up: live traffic there).
   */
  backlog(): number | undefined {
    if (this.partitions.size === 0) return undefined
    if (this.assigned !== undefined)
      for (const partition of this.assigned) if (!this.partitions.has(partition)) return undefined
    let lowest: number | undefined
    for (const { latestMs, idle } of this.partitions.values()) {
      if (idle) return undefined
      if (lowest === undefined || latestMs < lowest) lowest = latestMs
    }
    return lowest
  }

  /**
   * The partitions read more than `windowMs` of record time past the watermark; those in `held`
   * (held back already) stay so until they are within half of it, so a partition near the limit
   * is not held and let go at every batch. Empty when there is no watermark.
   */
  ahead(windowMs: number, held: ReadonlySet<number>): number[] {
    const watermark = this.current()
    if (watermark === undefined) return []
    const out: number[] = []
    for (const [partition, { latestMs }] of this.partitions) {
      const limit = held.has(partition) ? windowMs / 2 : windowMs
      if (latestMs - watermark > limit) out.push(partition)
    }
    return out
  }

  /** The partitions that hold the watermark where it is (lagging, at its time); empty when there is none. */
  laggards(): number[] {
    const watermark = this.current()
    if (watermark === undefined) return []
    const out: number[] = []
    for (const [partition, { latestMs, idle }] of this.partitions) {
      if (!idle && latestMs === watermark) out.push(partition)
    }
    return out
  }
}
