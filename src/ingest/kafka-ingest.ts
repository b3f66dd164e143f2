import type { Admin, Kafka, Producer } from 'kafkajs'
import type { TracescoreConfig } from '../config/index.ts'
import type { Span } from '../model/index.ts'
import type { Logger } from '../ops/logger.ts'
import { retryPolicies } from '../sink/retry-policy.ts'
import type { DeliveryTarget } from './delivery-queue.ts'
import { createKafkaSource, type IngestedTrace, type SpanSource } from './kafka-source.ts'
import { ensureRepartitionTopic, waitForTopic } from './kafka-topics.ts'
import { createSupervisedKafkajsConsumer } from './kafkajs-consumer.ts'
import { createTraceRepartitioner, type TraceRepartitioner } from './repartition/trace-repartitioner.ts'
import type { SamplingDoor } from './sampling-door.ts'

/** A range of the topic to read instead of the group's position (`tracescore replay`). */
export interface ReadRange {
  /** A throw-away consumer group: the service's committed offsets stay untouched. */
  groupId: string
  startOffsets: ReadonlyMap<number, string>
  /** Exclusive end of each partition. */
  endOffsets: ReadonlyMap<number, string>
}

/** What the ingest stage is built from: the configuration, the process's Kafka clients and the stage after it. */
export interface KafkaIngestOptions<R> {
  config: Pick<TracescoreConfig, 'kafka' | 'assembly'>
  kafka: Kafka
  /** The process's producer (dead letters, the repartitioned topic); connected on `start`. */
  producer: Producer
  admin: Admin
  logger: Logger
  isAgentRunSpan: (span: Span) => boolean
  isGenAiSpan: (span: Span) => boolean
  process: (trace: IngestedTrace) => Promise<R>
  targets: readonly DeliveryTarget<R>[]
  /** Traces no scorer can score are passed by as they are read (`samplingDoorOf` the scorers). */
  door?: SamplingDoor
  /** Read this range (no commits, no repartitioning) instead of consuming as the service. */
  range?: ReadRange
  now?: () => number
  /** Told the source's every (re)assignment (the score ledger). */
  onAssigned?(partitions: readonly number[]): void
}

/** The running ingest stage: the span source, behind the repartitioner when `kafka.repartition`. */
export interface KafkaIngest {
  readonly source: SpanSource
  /** The topic and group the source reads (the repartitioned topic when repartitioning). */
  readonly topic: string
  readonly groupId: string
  /** Resolves with the error when the source or the repartitioner stopped consuming for good. */
  readonly failed: Promise<unknown>
  /** Waits for the broker and the topic (until `signal` aborts), then starts consuming. */
  start(signal: AbortSignal): Promise<void>
  stop(): Promise<void>
}

/**
 * The ingest stage the configuration describes: a Kafka span source on `kafka.topic` (or, with
 * `kafka.repartition`, on `<topic>.by_trace` fed by the repartitioner), or on a range of the
 * topic for a replay, which commits nothing and gives up on a delivery after about a minute.
 */
export function createKafkaIngest<R>(options: KafkaIngestOptions<R>): KafkaIngest {
  const { config, kafka, producer, admin, logger, range } = options
  const repartitioner = config.kafka.repartition && !range ? repartitionerOf(options, 'spans') : undefined
  // The logs topic is repartitioned into the same internal topic: a trace's spans and log records
  // then meet on one partition (the schema requires kafka.repartition with kafka.logsTopic).
  const logsRepartitioner =
    repartitioner && config.kafka.logsTopic !== undefined ? repartitionerOf(options, 'logs') : undefined
  const stages = [repartitioner, logsRepartitioner].filter((stage) => stage !== undefined)
  const topic = repartitioner?.targetTopic ?? config.kafka.topic
  const groupId = range?.groupId ?? config.kafka.groupId
  const source = createKafkaSource<R>({
    ...config.assembly,
    kafka,
    producer,
    groupId,
    topic,
    fromBeginning: repartitioner || range ? true : config.kafka.fromBeginning,
    encoding: repartitioner ? 'otlp_json' : config.kafka.encoding,
    deadLetterTopic: config.kafka.deadLetterTopic,
    sessionTimeout: config.kafka.sessionTimeoutMs,
    maxWaitTimeMs: config.kafka.fetchMaxWaitMs,
    isAgentRunSpan: options.isAgentRunSpan,
    isGenAiSpan: options.isGenAiSpan,
    door: options.door,
    logger,
    now: options.now,
    process: options.process,
    targets: options.targets,
    onAssigned: options.onAssigned,
    // A replay gives up on a delivery after about a minute (then exits 1); the service never does.
    ...(range ? { ...range, commitIntervalMs: false as const, deliveryPolicy: retryPolicies.sink } : {}),
  })
  return {
    source,
    topic,
    groupId,
    failed: Promise.race([source.failed, ...stages.map((stage) => stage.failed)]),
    async start(signal) {
      await waitForTopic(admin, config.kafka.topic, logger, signal)
      await producer.connect()
      if (repartitioner) await ensureRepartitionTopic(admin, config.kafka.topic, repartitioner.targetTopic)
      if (logsRepartitioner) {
        // Not waited for, made: a producer that exported no log record yet has not created it.
        await ensureRepartitionTopic(admin, config.kafka.topic, config.kafka.logsTopic!)
        // Started first (each start waits for its group join): log records that reach the
        // repartitioned topic before their spans wait for them, while spans that come first
        // settle without them when the logs' stage joins more than settleMs later.
        await logsRepartitioner.start()
      }
      await repartitioner?.start()
      await source.start()
    },
    async stop() {
      // Side by side: each may wait for a group join under way to end (kafkajs-consumer.ts).
      await Promise.all(stages.map((stage) => stage.stop()))
      await source.stop({ commit: range === undefined })
    },
  }
}

/** The consumer group the repartition stage reads `kafka.topic` as (the Helm chart's KEDA trigger watches it). */
export function repartitionGroupId(groupId: string): string {
  return `${groupId}-repartition`
}

/** The consumer group the repartition stage reads `kafka.logsTopic` as. */
export function logsRepartitionGroupId(groupId: string): string {
  return `${groupId}-repartition-logs`
}

/**
 * The repartition stage of one raw topic: records not keyed by trace id are re-keyed by trace
 * into `<kafka.topic>.by_trace` (OTLP/JSON), which the source then consumes; `logs` reads
 * `kafka.logsTopic` into the same topic.
 */
function repartitionerOf(
  { config, kafka, producer, logger }: KafkaIngestOptions<unknown>,
  signal: 'spans' | 'logs',
): TraceRepartitioner {
  const logs = signal === 'logs'
  return createTraceRepartitioner({
    signal,
    ...(logs ? { targetTopic: `${config.kafka.topic}.by_trace` } : {}),
    consumer: createSupervisedKafkajsConsumer({
      kafka,
      groupId: (logs ? logsRepartitionGroupId : repartitionGroupId)(config.kafka.groupId),
      fromBeginning: config.kafka.fromBeginning,
      sessionTimeout: config.kafka.sessionTimeoutMs,
      maxWaitTimeMs: config.kafka.fetchMaxWaitMs,
      logger,
    }),
    producer,
    sourceTopic: logs ? config.kafka.logsTopic : config.kafka.topic,
    encoding: config.kafka.encoding,
    deadLetterTopic: config.kafka.deadLetterTopic,
    logger,
  })
}
