/**
 * The seam between the at-least-once core and Kafka: what the core needs from a consumer group
 * member, nothing more. `kafkajs-consumer.ts` implements it over kafkajs, `testing/memory-consumer.ts`
 * in memory (so delivery, offsets, rebalances and crashes are tested with plain data), and
 * `consumer-supervisor.ts` wraps either to replace a consumer that died.
 */

/** One consumed record. */
export interface ConsumedRecord {
  /** Kafka int64 offset as a decimal string. */
  offset: string
  key: Buffer | null
  value: Buffer | null
  headers?: Record<string, Buffer | string | (Buffer | string)[] | undefined>
  timestamp?: string
}

/** Records of one partition, in offset order, as one fetch returned them. */
export interface RecordBatch {
  topic: string
  partition: number
  records: readonly ConsumedRecord[]
  /**
   * The partition's high watermark (its end offset) as the fetch reported it, when known: records
   * at or past it were not written yet, so a member that read up to it has nothing left to read.
   */
  highWatermark?: string
}

/** An offset to commit: Kafka semantics, the next offset to read. */
export interface CommitOffset {
  topic: string
  partition: number
  offset: string
}

/** What a consumer tells its owner. */
export interface ConsumerHandlers {
  /**
   * A fetched batch. Returns the offset of the last record it consumed (the consumer fetches on
   * after it), or undefined when it consumed none (the records are fetched again). Called for one
   * batch at a time.
   */
  onBatch(batch: RecordBatch): Promise<string | undefined> | string | undefined
  /**
   * The group (re)assigned partitions of the topic to this member: after the first join and after
   * every rebalance or rejoin. Partitions not listed are no longer this member's.
   */
  onAssigned(partitions: readonly number[]): void
  /**
   * The group began rebalancing (kafkajs's REBALANCING, before this member rejoins): its
   * partitions may get another owner; `onAssigned` follows when the member joined again.
   */
  onRebalancing?(): void
  /**
   * Every record written before `epochMs` (wall clock) to the member's partitions was handed to
   * `onBatch`, except on partitions whose last batch stopped short of their end (they lag). Told
   * as fetches complete while reading; not told while paused. A port that cannot tell never calls it.
   */
  onReadThrough?(epochMs: number): void
  /**
   * The consumer stopped fetching because of `error`. `recovering` says whether it (or its
   * supervisor) is bringing consumption back; false means it gave up for good.
   */
  onCrash(error: unknown, recovering: boolean): void
}

/** A member of a consumer group on one topic, with manual commits. */
export interface ConsumerPort {
  /** Joins the group, subscribed to `topic`, and starts fetching into `handlers`. */
  start(topic: string, handlers: ConsumerHandlers): Promise<void>
  /** Commits offsets for the group (the next offsets to read). */
  commit(offsets: readonly CommitOffset[]): Promise<void>
  /** Stops fetching every partition (records stay in Kafka: the lag is the buffer). */
  pause(): void
  resume(): void
  /**
   * Stops fetching exactly these partitions (replacing the set held before) while the others are
   * read; independent of `pause`, which stops them all. Optional: a port without it reads every
   * partition as fast as it can.
   */
  holdBack?(partitions: readonly number[]): void
  /** Fetches a partition from `offset` next (a rejoin would otherwise restart at the committed offset). */
  seek(partition: number, offset: string): void
  /** Leaves the group and disconnects; no handler is called afterwards. */
  stop(): Promise<void>
  /**
   * True when the port calls `onReadThrough` as it reads: its owner then counts nothing read that
   * was written after it started until the port says so. Otherwise the owner goes by the clock.
   */
  readonly reportsReadThrough?: boolean
}

/** Creates a fresh consumer (a supervisor replaces a dead one with the next). */
export type ConsumerFactory = () => ConsumerPort
