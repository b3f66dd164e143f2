/**
 * The one module of Kafka helpers for tests and benchmarks on the real local broker started by
 * `bash scripts/kafka-start.sh` (Kafka 4.1.2, KRaft single node, 127.0.0.1:9092; `KAFKA_BROKERS`
 * overrides): clients, unique topics, producing, reading a topic back, offsets, extra brokers.
 *
 * Notes for test authors:
 * - Use `uniqueName()` and create it with `createTopic()` before producing: the broker
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
  type Admin,
  type CompressionTypes,
  type EachMessagePayload,
  type IHeaders,
  Kafka,
  logLevel,
  type Message,
} from 'kafkajs'
import { fixKafkajsRequestQueue } from '../../src/ingest/kafkajs-request-queue.ts'
import { until } from './poll.ts'

const execFileP = promisify(execFile)

/** The repository root. */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Broker addresses: `KAFKA_BROKERS` (comma separated) or 127.0.0.1:9092. */
export function testBrokers(): string[] {
  return (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',').map((b) => b.trim())
}

/** A quiet kafkajs client on `testBrokers()` (or the given list), without kafkajs's idle timer loop. */
export function testKafka(clientId = 'tracescore-test', brokers: string[] = testBrokers()): Kafka {
  fixKafkajsRequestQueue()
  return new Kafka({ clientId, brokers, logLevel: logLevel.NOTHING })
}

/** A topic (or group) name no other test uses: `<prefix>-<8 hex>`. */
export function uniqueName(prefix = 'test'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`
}

/** `work` through `admin` when given (kept connected by the caller), else through a fresh one. */
function through<T>(kafka: Kafka, admin: Admin | undefined, work: (admin: Admin) => Promise<T>): Promise<T> {
  return admin === undefined ? withAdmin(kafka, work) : work(admin)
}

/** Runs `work` with a connected admin client, and disconnects it. */
async function withAdmin<T>(kafka: Kafka, work: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    return await work(admin)
  } finally {
    await admin.disconnect()
  }
}

/** Creates a topic with replication factor 1 and waits for its partition leaders. */
export async function createTopic(kafka: Kafka, topic: string, numPartitions = 1): Promise<void> {
  await withAdmin(kafka, (admin) =>
    admin.createTopics({ topics: [{ topic, numPartitions, replicationFactor: 1 }], waitForLeaders: true }),
  )
}

/** Deletes topics (ignores ones that do not exist). */
export async function deleteTopics(kafka: Kafka, topics: string[]): Promise<void> {
  await withAdmin(kafka, async (admin) => {
    const existing = new Set(await admin.listTopics())
    const present = topics.filter((t) => existing.has(t))
    if (present.length > 0) await admin.deleteTopics({ topics: present })
  })
}

/** The end offset (high watermark) of every partition of a topic. */
export async function endOffsets(kafka: Kafka, topic: string, admin?: Admin): Promise<Map<number, string>> {
  const offsets = await through(kafka, admin, (a) => a.fetchTopicOffsets(topic))
  return new Map(offsets.map((o) => [o.partition, o.high]))
}

/** The committed offsets of a consumer group on a topic (`-1` where nothing was committed). */
export async function committedOffsets(
  kafka: Kafka,
  groupId: string,
  topic: string,
  admin?: Admin,
): Promise<Map<number, string>> {
  const [result] = await through(kafka, admin, (a) => a.fetchOffsets({ groupId, topics: [topic] }))
  return new Map((result?.partitions ?? []).map((p) => [p.partition, p.offset]))
}

/**
 * True when the group has committed the end of every partition of the topic. Through `admin` when
 * given: a loop that polls this keeps one connected admin (a fresh one per call takes ~300 ms to
 * connect on the project's machine, so the poll would see the commit that much late).
 */
export async function fullyCommitted(
  kafka: Kafka,
  groupId: string,
  topic: string,
  admin?: Admin,
): Promise<boolean> {
  const [ends, committed] = await Promise.all([
    endOffsets(kafka, topic, admin),
    committedOffsets(kafka, groupId, topic, admin),
  ])
  for (const [partition, end] of ends) if (committed.get(partition) !== end) return false
  return true
}

/** Waits (up to a minute) until the group has committed the end of every partition of the topic. */
export function untilFullyCommitted(
  kafka: Kafka,
  groupId: string,
  topic: string,
  what: string,
): Promise<void> {
  return until(
    () => fullyCommitted(kafka, groupId, topic),
    60_000,
    () => what,
  )
}

/** A message for `produce()`: a kafkajs Message, or just a value. */
export type ProduceInput = Message | string | Buffer

/**
 * Produces messages in one batch (acks=all, idempotent off) and returns the base offsets per
 * partition that the broker assigned.
 */
export async function produce(
  kafka: Kafka,
  topic: string,
  messages: ProduceInput[],
  options: { compression?: CompressionTypes } = {},
): Promise<{ partition: number; baseOffset: string }[]> {
  const producer = kafka.producer({ allowAutoTopicCreation: false })
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

/** A record read back by `readTopic()`. */
export interface ReadRecord {
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
 * group protocol, as the service uses; `groupId` to name it), then leaves the group. Rejects
 * after `timeoutMs` with how many had arrived.
 */
export async function readTopic(
  kafka: Kafka,
  topic: string,
  count: number,
  timeoutMs = 30_000,
  groupId = uniqueName('reader'),
): Promise<ReadRecord[]> {
  const consumer = kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 1_000 })
  const records: ReadRecord[] = []
  await consumer.connect()
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true })
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`readTopic(${topic}): ${records.length} of ${count} records in time`)),
        timeoutMs,
      )
      consumer
        .run({
          eachMessage: async ({ topic: t, partition, message }: EachMessagePayload) => {
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
 * the broker) do it: `javaClient(['produce', testBrokers().join(','), topic, 'zstd', '10', 'v'])`;
 * `javaClient(['consume', testBrokers().join(','), topic, '10'])` prints `<topic>\t<value>` lines.
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
