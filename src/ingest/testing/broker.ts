/**
 * Helpers for integration tests and benchmarks on the real local broker
 * (`bash scripts/kafka-start.sh`): unique topics, end offsets, committed offsets, reading a topic.
 */
import { randomUUID } from 'node:crypto'
import { type IHeaders, Kafka, logLevel } from 'kafkajs'

/** Broker addresses: `KAFKA_BROKERS` (comma separated) or 127.0.0.1:9092. */
export const testBrokers = (): string[] => (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',')

/** A kafkajs client for tests (quiet logs). */
export const testKafka = (clientId = 'tracescore-test'): Kafka =>
  new Kafka({ clientId, brokers: testBrokers(), logLevel: logLevel.NOTHING })

/** A topic name no other test uses. */
export const uniqueName = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`

/** Creates a topic (waiting for its leaders). */
export async function createTopic(kafka: Kafka, topic: string, numPartitions = 1): Promise<void> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    await admin.createTopics({
      topics: [{ topic, numPartitions, replicationFactor: 1 }],
      waitForLeaders: true,
    })
  } finally {
    await admin.disconnect()
  }
}

/** Deletes topics (benchmarks clean up the large ones they create). */
export async function deleteTopics(kafka: Kafka, topics: string[]): Promise<void> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    await admin.deleteTopics({ topics })
  } finally {
    await admin.disconnect()
  }
}

/** The end offset (high watermark) of every partition of a topic. */
export async function endOffsets(kafka: Kafka, topic: string): Promise<Map<number, string>> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    const offsets = await admin.fetchTopicOffsets(topic)
    return new Map(offsets.map((o) => [o.partition, o.high]))
  } finally {
    await admin.disconnect()
  }
}

/** The committed offsets of a consumer group on a topic (`-1` where nothing was committed). */
export async function committedOffsets(
  kafka: Kafka,
  groupId: string,
  topic: string,
): Promise<Map<number, string>> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    const [result] = await admin.fetchOffsets({ groupId, topics: [topic] })
    return new Map((result?.partitions ?? []).map((p) => [p.partition, p.offset]))
  } finally {
    await admin.disconnect()
  }
}

/** True when the group has committed the end of every partition of the topic. */
export async function fullyCommitted(kafka: Kafka, groupId: string, topic: string): Promise<boolean> {
  const [ends, committed] = await Promise.all([
    endOffsets(kafka, topic),
    committedOffsets(kafka, groupId, topic),
  ])
  for (const [partition, end] of ends) if (committed.get(partition) !== end) return false
  return true
}

/** A record read back from a topic. */
export interface ReadRecord {
  partition: number
  offset: string
  key: string | null
  value: Buffer | null
  headers: Record<string, string>
}

const headerText = (headers: IHeaders | undefined): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue
    out[name] = Array.isArray(value) ? value.map(String).join(',') : value.toString()
  }
  return out
}

/** Reads every record of a topic from the beginning until `count` records arrived. */
export async function readTopic(
  kafka: Kafka,
  topic: string,
  count: number,
  timeoutMs = 30_000,
): Promise<ReadRecord[]> {
  const records: ReadRecord[] = []
  const consumer = kafka.consumer({ groupId: uniqueName('reader') })
  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`read ${records.length} of ${count} records`)),
        timeoutMs,
      )
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          records.push({
            partition,
            offset: message.offset,
            key: message.key?.toString() ?? null,
            value: message.value,
            headers: headerText(message.headers),
          })
          if (records.length >= count) {
            clearTimeout(timer)
            resolve()
          }
        },
      })
    })
  } finally {
    await consumer.disconnect()
  }
  return records
}

/** Polls `condition` until it holds; rejects after `timeoutMs` with `what` in the message. */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
