import { randomUUID } from 'node:crypto'
import type { Admin, Consumer, EachBatchPayload, Kafka, Producer } from 'kafkajs'
import type { Logger } from '../ops/logger.ts'
import type { LedgerLog, LedgerLogWrite, LedgerRecordsHandler } from './ledger-log.ts'

/** Settings of the ledger topic's reader and writer. */
export interface KafkaLedgerLogOptions {
  kafka: Kafka
  /** The process's producer (connected by the pipeline). */
  producer: Producer
  admin: Admin
  topic: string
  /** The service's group id; the reader's own group is derived from it (one per process). */
  groupId: string
  logger: Logger
}

/** The ledger log on Kafka, with its reader's lifecycle. */
export interface KafkaLedgerLog extends LedgerLog {
  /** Starts the reader (its own single-member group, every partition paused until followed). */
  start(onRecords: LedgerRecordsHandler): Promise<void>
  stop(): Promise<void>
}

/**
 * The ledger topic over kafkajs. The reader is a consumer alone in a group of its own (so every
 * ledger partition is assigned to it) that reads only the partitions `follow` names, from the
 * offsets given, and keeps the others paused; it commits nothing. After a restart of its group
 * (a broker outage) it seeks back to where each followed partition was read.
 */
export function createKafkaLedgerLog(options: KafkaLedgerLogOptions): KafkaLedgerLog {
  const { kafka, producer, admin, topic, logger } = options
  const readerGroup = `${options.groupId}.score-ledger-reader.${randomUUID().slice(0, 8)}`
  let consumer: Consumer | undefined
  let handler: LedgerRecordsHandler = () => {}
  let allPartitions: number[] = []
  /** Followed partitions and the next offset to read of each. */
  let positions = new Map<number, string>()

  const quietly = (what: string, action: () => void) => {
    try {
      action()
    } catch (error) {
      logger.debug({ err: error }, `score ledger reader: ${what} deferred`)
    }
  }

  /** Pauses what is not followed, seeks and resumes what is. */
  const apply = () => {
    const c = consumer
    if (c === undefined) return
    const idle = allPartitions.filter((p) => !positions.has(p))
    if (idle.length > 0) quietly('pause', () => c.pause([{ topic, partitions: idle }]))
    for (const [partition, offset] of positions) quietly('seek', () => c.seek({ topic, partition, offset }))
    if (positions.size > 0) quietly('resume', () => c.resume([{ topic, partitions: [...positions.keys()] }]))
  }

  let stopped = false
  /** A reader kafkajs gave up on is replaced (every second until one starts), reading on where it was. */
  const replace = async (error: unknown) => {
    logger.warn({ err: error }, 'score ledger reader crashed; replacing it')
    await consumer?.disconnect().catch(() => {})
    while (!stopped) {
      await new Promise((r) => setTimeout(r, 1_000))
      if (stopped) return
      try {
        await connect()
        return
      } catch (startError) {
        logger.warn({ err: startError }, 'score ledger reader did not start; retrying')
      }
    }
  }

  const connect = async () => {
    const c = kafka.consumer({ groupId: readerGroup, allowAutoTopicCreation: false, maxWaitTimeInMs: 100 })
    consumer = c
    // A restart of the reader's group forgets pauses and seeks: apply them again.
    c.on(c.events.GROUP_JOIN, () => apply())
    c.on(c.events.CRASH, (event) => {
      if (!event.payload.restart && c === consumer && !stopped) void replace(event.payload.error)
    })
    await c.connect()
    await c.subscribe({ topics: [topic], fromBeginning: true })
    await c.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch })
    apply()
  }

  const eachBatch = async ({ batch, isRunning, isStale, resolveOffset, heartbeat }: EachBatchPayload) => {
    if (!isRunning() || isStale()) return
    const { partition, messages } = batch
    if (!positions.has(partition) || messages.length === 0) return
    handler(partition, messages)
    const last = messages.at(-1)!.offset
    positions.set(partition, String(BigInt(last) + 1n))
    resolveOffset(last)
    await heartbeat()
  }

  return {
    async offsets(partitions) {
      const all = await admin.fetchTopicOffsets(topic)
      const wanted = new Set(partitions)
      return new Map(
        all.filter((o) => wanted.has(o.partition)).map((o) => [o.partition, { low: o.low, high: o.high }]),
      )
    },
    follow(from) {
      positions = new Map(from)
      apply()
    },
    async write(records: readonly LedgerLogWrite[]) {
      if (records.length === 0) return
      await producer.send({ topic, acks: -1, messages: records.map((r) => ({ ...r })) })
    },
    async start(onRecords) {
      handler = onRecords
      stopped = false
      allPartitions = (await admin.fetchTopicOffsets(topic)).map((o) => o.partition)
      await connect()
    },
    async stop() {
      stopped = true
      await consumer?.disconnect().catch(() => {})
      await admin.deleteGroups([readerGroup]).catch(() => {})
    },
  }
}

/** Settings of the ledger topic when tracescore creates it. */
export interface LedgerTopicOptions {
  topic: string
  /** At least as many partitions as the input topic the source reads (ledger partition = input partition). */
  partitions: number
  retentionMs: number
}

/**
 * Creates the ledger topic if it is missing (compacted, and deleted after the retention:
 * `cleanup.policy=compact,delete`), and adds partitions to one that has fewer than the input.
 * An existing topic's configuration is left as it is.
 */
export async function ensureLedgerTopic(admin: Admin, options: LedgerTopicOptions): Promise<void> {
  const { topic, partitions, retentionMs } = options
  const existing = await admin.listTopics()
  if (!existing.includes(topic)) {
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic,
          numPartitions: partitions,
          configEntries: [
            { name: 'cleanup.policy', value: 'compact,delete' },
            { name: 'retention.ms', value: String(retentionMs) },
            // Segments roll at least daily so that compaction and deletion can act on them.
            { name: 'segment.ms', value: String(Math.min(retentionMs, 24 * 60 * 60 * 1000)) },
          ],
        },
      ],
    })
    return
  }
  const count = (await admin.fetchTopicOffsets(topic)).length
  if (count < partitions) await admin.createPartitions({ topicPartitions: [{ topic, count: partitions }] })
}
