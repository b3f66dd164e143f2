/**
 * Shared helpers for tests on the real local broker started by `bash scripts/kafka-start.sh`
 * (Kafka 4.1.2, KRaft single node, 127.0.0.1:9092; `KAFKA_BROKERS` overrides).
 *
 * Notes for test authors:
 * - Use `uniqueTopic()` and create it with `createTopic()` before producing: the broker
 *   auto-creates topics, but a first produce to a missing topic retries on LEADER_NOT_AVAILABLE.
 * - Consumer groups join fast (`group.initial.rebalance.delay.ms=0`, one `__consumer_offsets`
 *   partition), yet the very first group on a fresh broker still creates `__consumer_offsets`:
 *   allow ~5 s for it.
 * - Restart tests: `bash scripts/kafka-stop.sh && KAFKA_KEEP_DATA=1 bash scripts/kafka-start.sh`
 *   keeps topics and committed offsets; run them on their own port (`KAFKA_PORT=19092`, state in
 *   .kafka/port-19092) so other tests on 9092 are not disturbed — see `startBroker()` below.
 * - Named imports of `CompressionTypes` / `CompressionCodecs` from 'kafkajs' work under vitest but
 *   fail under plain node/tsx (Node's CJS export detection misses them); use
 *   `import kafkajs from 'kafkajs'` + `kafkajs.CompressionTypes` in code that runs outside vitest.
 */
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import {
  type CompressionTypes,
  type IHeaders,
  Kafka,
  type KafkaMessage,
  logLevel,
  type Message,
} from 'kafkajs'

const execFileP = promisify(execFile)

/** The repository root. */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Broker addresses: `KAFKA_BROKERS` (comma separated) or 127.0.0.1:9092. */
export function brokers(): string[] {
  return (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',').map((b) => b.trim())
}

/** A quiet kafkajs client on `brokers()` (or the given list). */
export function kafka(clientId = 'tracescore-test', brokerList: string[] = brokers()): Kafka {
  return new Kafka({ clientId, brokers: brokerList, logLevel: logLevel.NOTHING })
}

/** A topic (or group) name no other test uses: `<prefix>-<8 hex>`. */
export function uniqueTopic(prefix = 'test'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`
}

/** Creates a topic with replication factor 1 and waits for its partition leaders. */
export async function createTopic(name: string, partitions = 1, client: Kafka = kafka()): Promise<void> {
  const admin = client.admin()
  await admin.connect()
  try {
    await admin.createTopics({
      topics: [{ topic: name, numPartitions: partitions, replicationFactor: 1 }],
      waitForLeaders: true,
    })
  } finally {
    await admin.disconnect()
  }
}

/** Deletes topics (ignores ones that do not exist). */
export async function deleteTopics(names: string[], client: Kafka = kafka()): Promise<void> {
  const admin = client.admin()
  await admin.connect()
  try {
    const existing = new Set(await admin.listTopics())
    const topics = names.filter((n) => existing.has(n))
    if (topics.length > 0) await admin.deleteTopics({ topics })
  } finally {
    await admin.disconnect()
  }
}

/** A message for `produce()`: a kafkajs Message, or just a value. */
export type ProduceInput = Message | string | Buffer

/**
 * Produces messages in one batch (acks=all, idempotent off) and returns the base offsets per
 * partition that the broker assigned.
 */
export async function produce(
  topic: string,
  messages: ProduceInput[],
  options: { compression?: CompressionTypes; client?: Kafka } = {},
): Promise<{ partition: number; baseOffset: string }[]> {
  const producer = (options.client ?? kafka()).producer({ allowAutoTopicCreation: false })
  await producer.connect()
  try {
    const result = await producer.send({
      topic,
      acks: -1,
      compression: options.compression,
      messages: messages.map((m) => (typeof m === 'string' || Buffer.isBuffer(m) ? { value: m } : m)),
    })
    return result.map((r) => ({ partition: r.partition, baseOffset: r.baseOffset ?? '-1' }))
  } finally {
    await producer.disconnect()
  }
}

/** A record read back by `consume()`. */
export interface ConsumedRecord {
  topic: string
  partition: number
  offset: string
  key: string | null
  value: Buffer | null
  headers: Record<string, string>
  timestamp: string
}

function headerText(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (v === undefined) continue
    out[k] = Array.isArray(v) ? v.map(String).join(',') : String(v)
  }
  return out
}

/**
 * Reads `count` records from the beginning of a topic in a fresh consumer group (the classic
 * group protocol, as our service uses), then leaves the group. Rejects after `timeoutMs`
 * (default 30 s) with how many had arrived.
 */
export async function consume(
  topic: string,
  count: number,
  options: { groupId?: string; timeoutMs?: number; client?: Kafka } = {},
): Promise<ConsumedRecord[]> {
  const consumer = (options.client ?? kafka()).consumer({
    groupId: options.groupId ?? uniqueTopic('test-group'),
    sessionTimeout: 10_000,
    heartbeatInterval: 1_000,
  })
  const records: ConsumedRecord[] = []
  await consumer.connect()
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true })
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`consume(${topic}): ${records.length} of ${count} records in time`)),
        options.timeoutMs ?? 30_000,
      )
      consumer
        .run({
          eachMessage: async ({
            topic: t,
            partition,
            message,
          }: {
            topic: string
            partition: number
            message: KafkaMessage
          }) => {
            records.push({
              topic: t,
              partition,
              offset: message.offset,
              key: message.key ? message.key.toString('utf8') : null,
              value: message.value,
              headers: headerText(message.headers),
              timestamp: message.timestamp,
            })
            if (records.length >= count) {
              clearTimeout(timer)
              resolve()
            }
          },
        })
        .catch((err: unknown) => {
          clearTimeout(timer)
          reject(err)
        })
    })
  } finally {
    await consumer.disconnect()
  }
  return records
}

/** Runs a script of ours (scripts/<name>) with extra env; returns stdout+stderr, throws on failure. */
export async function runScript(name: string, env: Record<string, string> = {}): Promise<string> {
  const { stdout, stderr } = await execFileP('bash', [join(repoRoot, 'scripts', name)], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    timeout: 180_000,
  })
  return stdout + stderr
}

/**
 * Starts an extra broker on its own port (state in .kafka/port-<port>) for tests that stop and
 * restart a broker, so the shared one on 9092 stays up. Pass `keepData: true` on a restart.
 * Returns its bootstrap address and a `stop()`.
 */
export async function startBroker(
  port: number,
  options: { keepData?: boolean } = {},
): Promise<{ brokers: string[]; output: string; stop: (wipe?: boolean) => Promise<string> }> {
  const env = { KAFKA_PORT: String(port), KAFKA_KEEP_DATA: options.keepData ? '1' : '0' }
  const output = await runScript('kafka-start.sh', env)
  return {
    brokers: [`127.0.0.1:${port}`],
    output,
    stop: (wipe = false) =>
      runScript('kafka-stop.sh', { KAFKA_PORT: String(port), KAFKA_WIPE: wipe ? '1' : '0' }),
  }
}

/**
 * Runs the Java Kafka client (kafka/tools/JavaClient.java, on the broker's classpath from Maven
 * Central): the reference implementation, e.g. to produce records compressed the way Java (and
 * the broker) do it: `javaClient(['produce', brokers().join(','), topic, 'zstd', '10', 'v'])`;
 * `javaClient(['consume', brokers().join(','), topic, '10'])` prints `<topic>\t<value>` lines.
 */
export async function javaClient(args: string[]): Promise<string> {
  const { stdout } = await execFileP(
    'java',
    [
      '-Xmx128m',
      '-XX:TieredStopAtLevel=1',
      `-Dlog4j2.configurationFile=${join(repoRoot, 'kafka', 'log4j2.properties')}`,
      `-Dkafka.logs.dir=${join(repoRoot, '.kafka', 'java-client-logs')}`,
      '-cp',
      join(repoRoot, 'kafka', 'target', 'libs', '*'),
      join(repoRoot, 'kafka', 'tools', 'JavaClient.java'),
      ...args,
    ],
    { cwd: repoRoot, timeout: 90_000, maxBuffer: 64 * 1024 * 1024 },
  )
  return stdout
}
