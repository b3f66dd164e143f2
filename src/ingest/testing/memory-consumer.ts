/**
 * An in-memory Kafka topic and consumer-group members implementing `ConsumerPort`, for unit tests
 * of the at-least-once core: records appended per partition, committed offsets of one group,
 * fetching in batches, pause/resume, seek, and the faults tests inject (a rebalance, a crash, a
 * failing or hanging commit). It keeps kafkajs's semantics where the core depends on them: after
 * a (re)assignment a member reads from the committed offset unless it seeks, and a batch fetched
 * before a rebalance or seek does not move the position.
 */
import type { CommitOffset, ConsumedRecord, ConsumerHandlers, ConsumerPort } from '../consumer-port.ts'

/** A record to append. */
export interface MemoryRecordInput {
  key?: Buffer | string | null
  value: Buffer | string | null
  /** The record's time (epoch ms), as Kafka stamps records; none when absent. */
  timestamp?: number
}

/** One member of the topic's group. */
export interface MemoryConsumer extends ConsumerPort {
  /** Simulates a rebalance that leaves this member `partitions`. */
  assign(partitions: readonly number[]): void
  /** Simulates the start of a rebalance (kafkajs's REBALANCING); `assign` ends it. */
  rebalancing(): void
  /** Simulates the client dying: no more fetches, `onCrash(error, false)`. */
  crash(error?: Error): void
  /** Whether the member fetches (started, not crashed or stopped). */
  readonly running: boolean
  readonly paused: boolean
  /** The partitions held back now (`holdBack`), ascending. */
  readonly heldBack: number[]
  /** Every commit call's offsets, in order (failed ones included). */
  readonly commitCalls: CommitOffset[][]
}

/** A topic, its records and the committed offsets of one consumer group. */
export interface MemoryTopic {
  readonly name: string
  readonly partitions: number
  append(partition: number, records: readonly MemoryRecordInput[]): void
  /** Records of a partition (offset = index). */
  records(partition: number): readonly ConsumedRecord[]
  /** The group's committed offset of a partition (the next to read), -1 when none. */
  committed(partition: number): number
  /** A new member; by default it is assigned every partition when it starts. */
  consumer(options?: MemoryConsumerOptions): MemoryConsumer
  /** The next `n` commits fail (rejecting with `error`). */
  failCommits(n: number, error?: Error): void
  /** The next `n` commits never settle (a broker that never answers). */
  hangCommits(n: number): void
  /**
   * The next `n` commits resolve but are not made: kafkajs 2.2.4 answers a commit so while its
   * consumer restarts (after a broker restart, for one).
   */
  dropCommits(n: number): void
}

/** Options of a memory consumer. */
export interface MemoryConsumerOptions {
  /** Most records per batch. Default 10. */
  batchSize?: number
  /** Partitions assigned on start. Default all. */
  partitions?: readonly number[]
  /** Where a partition without a committed offset starts. Default true (the beginning). */
  fromBeginning?: boolean
}

const toBuffer = (v: Buffer | string | null | undefined): Buffer | null =>
  v === null || v === undefined ? null : typeof v === 'string' ? Buffer.from(v) : v

/** Creates an in-memory topic with `partitions` partitions. */
export function createMemoryTopic(name: string, partitions = 1): MemoryTopic {
  const logs: ConsumedRecord[][] = Array.from({ length: partitions }, () => [])
  const committed = new Map<number, number>()
  let failing = 0
  let failError = new Error('commit failed')
  let hanging = 0
  let dropping = 0
  const topic: MemoryTopic = {
    name,
    partitions,
    append(partition, records) {
      const log = logs[partition]!
      for (const r of records)
        log.push({
          offset: String(log.length),
          key: toBuffer(r.key),
          value: toBuffer(r.value),
          ...(r.timestamp === undefined ? {} : { timestamp: String(r.timestamp) }),
        })
    },
    records: (partition) => logs[partition]!,
    committed: (partition) => committed.get(partition) ?? -1,
    consumer: (options = {}) =>
      memoryConsumer(topic, logs, options, (offsets) => {
        if (hanging > 0) {
          hanging--
          return new Promise<void>(() => {})
        }
        if (failing > 0) {
          failing--
          return Promise.reject(failError)
        }
        if (dropping > 0) {
          dropping--
          return Promise.resolve()
        }
        for (const o of offsets) committed.set(o.partition, Number(o.offset))
        return Promise.resolve()
      }),
    failCommits(n, error = new Error('commit failed')) {
      failing = n
      failError = error
    },
    hangCommits(n) {
      hanging = n
    },
    dropCommits(n) {
      dropping = n
    },
  }
  return topic
}

function memoryConsumer(
  topic: MemoryTopic,
  logs: ConsumedRecord[][],
  options: MemoryConsumerOptions,
  commitToGroup: (offsets: readonly CommitOffset[]) => Promise<void>,
): MemoryConsumer {
  const batchSize = options.batchSize ?? 10
  const positions = new Map<number, number>()
  const commitCalls: CommitOffset[][] = []
  let handlers: ConsumerHandlers | undefined
  let running = false
  let paused = false
  /** Partitions held back (`holdBack`): not fetched. */
  let held = new Set<number>()
  /** Bumped by every rebalance and seek: a batch fetched before it does not move the position. */
  let epoch = 0
  let loop: Promise<void> | undefined

  const startPosition = (partition: number) => {
    const c = topic.committed(partition)
    return c >= 0 ? c : options.fromBeginning === false ? logs[partition]!.length : 0
  }

  const fetchOnce = async (): Promise<boolean> => {
    let fetched = false
    for (const [partition, position] of positions) {
      if (!running || paused) return fetched
      if (held.has(partition)) continue
      const records = logs[partition]!.slice(position, position + batchSize)
      if (records.length === 0) continue
      fetched = true
      const at = epoch
      const highWatermark = String(logs[partition]!.length)
      const last = await handlers!.onBatch({ topic: topic.name, partition, records, highWatermark })
      if (last !== undefined && at === epoch && running && positions.has(partition))
        positions.set(partition, Number(last) + 1)
    }
    return fetched
  }

  const fetchLoop = async () => {
    while (running) {
      const fetched = await fetchOnce()
      // Yield to timers between fetches; idle (or paused) members poll every few milliseconds.
      await new Promise((r) => setTimeout(r, fetched ? 0 : 2))
    }
  }

  const consumer: MemoryConsumer = {
    get running() {
      return running
    },
    get paused() {
      return paused
    },
    get heldBack() {
      return [...held].sort((a, b) => a - b)
    },
    commitCalls,
    async start(name, h) {
      if (name !== topic.name) throw new Error(`unknown topic ${name}`)
      handlers = h
      running = true
      consumer.assign(options.partitions ?? Array.from({ length: topic.partitions }, (_, i) => i))
      loop = fetchLoop()
    },
    commit(offsets) {
      commitCalls.push(offsets.map((o) => ({ ...o })))
      if (!running) return Promise.reject(new Error('consumer is not running'))
      return commitToGroup(offsets)
    },
    pause() {
      paused = true
    },
    resume() {
      paused = false
    },
    holdBack(partitions) {
      held = new Set(partitions)
    },
    seek(partition, offset) {
      if (!positions.has(partition)) return
      epoch++
      positions.set(partition, Number(offset))
    },
    assign(partitions) {
      epoch++
      positions.clear()
      for (const p of partitions) positions.set(p, startPosition(p))
      handlers?.onAssigned(partitions)
    },
    rebalancing() {
      handlers?.onRebalancing?.()
    },
    crash(error = new Error('consumer crashed')) {
      running = false
      handlers?.onCrash(error, false)
    },
    async stop() {
      running = false
      await loop
    },
  }
  return consumer
}
