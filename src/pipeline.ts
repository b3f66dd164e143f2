import type { Kafka, Producer } from 'kafkajs'
import type { TracescoreConfig } from './config/index.ts'
import { createKafkaClient } from './ingest/kafka-client.ts'
import type { IngestedTrace } from './ingest/kafka-source.ts'
import { createKafkaSource } from './ingest/kafka-source.ts'
import { ensureRepartitionTopic, waitForTopic } from './ingest/kafka-topics.ts'
import { createSupervisedKafkajsConsumer } from './ingest/kafkajs-consumer.ts'
import { createTraceRepartitioner } from './ingest/repartition/trace-repartitioner.ts'
import type { SpanSourceStats } from './ingest/span-source.ts'
import { refreshConsumerLag } from './ops/consumer-lag.ts'
import { createLogger, type Logger } from './ops/logger.ts'
import { createMetrics, type Metrics } from './ops/metrics.ts'
import { sourceMetricsUpdater } from './ops/source-metrics.ts'
import { scoreTrace, type TraceScores } from './score-trace.ts'
import { configureJudgeFromConfig } from './scoring/judge-governance.ts'
import { TokenBudget } from './scoring/token-budget.ts'
import { decisionsTarget, sinkTarget } from './sink/delivery-targets.ts'
import { coalesceDeliveries, createSink, type Sink, type SinkConfig } from './sink/index.ts'
import { retryPolicies } from './sink/retry-policy.ts'
import { isAgentRunSpan } from './transform/index.ts'

/** A running tracescore pipeline: Kafka source → transform → scoring → sinks. */
export interface Pipeline {
  start(): Promise<void>
  /** Drains in-flight runs, commits what the sinks acknowledged, closes the sinks. */
  stop(): Promise<void>
  /** Counters of the source (records, spans, traces, dead letters, commits...). */
  stats(): SpanSourceStats
  readonly metrics: Metrics
  /** True while the consumer is in its group and reading (`/readyz`). */
  ready(): boolean
  /**
   * Resolves with the error when consuming ended for good: the consumer could not be recovered
   * (or, in a replay, a delivery was given up). The process should then exit non-zero.
   */
  readonly failed: Promise<unknown>
  /** With `deps.range`: resolves when every partition was read to the range's end. */
  readonly caughtUp: Promise<void>
  /** Releases every buffered trace, complete or not, and waits until each is scored and delivered. */
  drain(): Promise<void>
  /** Brings the metrics read from the source and from Kafka (lag) up to date; called before each scrape. */
  refreshMetrics(): Promise<void>
}

/** A range of the topic to read instead of the group's position (`tracescore replay`). */
export interface PipelineRange {
  /** A throw-away consumer group: the service's committed offsets stay untouched. */
  groupId: string
  startOffsets: ReadonlyMap<number, string>
  /** Exclusive end of each partition. */
  endOffsets: ReadonlyMap<number, string>
}

/** What the pipeline may be given instead of building it from the configuration. */
export interface PipelineDeps {
  logger?: Logger
  metrics?: Metrics
  /** Extra sinks, delivered to along with the configured ones (the demo's summary uses this). */
  extraSinks?: Sink[]
  now?: () => number
  /** The process's kafkajs client; `createKafkaClient(config.kafka)` when absent. */
  kafka?: Kafka
  /** Read this range (no commits, no repartitioning) instead of consuming as the service. */
  range?: PipelineRange
}

/** Builds the pipeline the configuration describes (`tracescore run`, or embedded in an app). */
export function createPipeline(config: TracescoreConfig, deps: PipelineDeps = {}): Pipeline {
  const logger = deps.logger ?? createLogger(config.log.level)
  const metrics = deps.metrics ?? createMetrics()
  // One client per process: the consumers, the producer and the admin all come from it.
  const kafka = deps.kafka ?? createKafkaClient(config.kafka)
  const producer = kafka.producer({ allowAutoTopicCreation: true })
  const admin = kafka.admin()
  const sinks = sinksOf(config, producer, deps.extraSinks)
  const { decisionsTopic } = config.kafka
  const repartitioner =
    config.kafka.repartition && !deps.range ? repartitionerOf(config, kafka, producer, logger) : undefined
  const topic = repartitioner?.targetTopic ?? config.kafka.topic
  const groupId = deps.range?.groupId ?? config.kafka.groupId
  const source = createKafkaSource<TraceScores>({
    kafka,
    producer,
    groupId,
    topic,
    fromBeginning: repartitioner || deps.range ? true : config.kafka.fromBeginning,
    encoding: repartitioner ? 'otlp_json' : config.kafka.encoding,
    deadLetterTopic: config.kafka.deadLetterTopic,
    sessionTimeout: config.kafka.sessionTimeoutMs,
    ...config.assembly,
    isAgentRunSpan,
    logger,
    now: deps.now,
    process: scorerOf(config, metrics, logger, deps.now),
    targets: [
      ...sinks.map((sink) => sinkTarget(sink, metrics)),
      ...(decisionsTopic ? [decisionsTarget(producer, decisionsTopic)] : []),
    ],
    // A replay gives up on a delivery after about a minute (then exits 1); the service never does.
    ...(deps.range
      ? { ...deps.range, commitIntervalMs: false as const, deliveryPolicy: retryPolicies.sink }
      : {}),
  })
  const updateSourceMetrics = sourceMetricsUpdater(metrics, source.stats)
  const starting = new AbortController()
  return {
    metrics,
    stats: source.stats,
    ready: source.ready,
    failed: Promise.race([source.failed, ...(repartitioner ? [repartitioner.failed] : [])]),
    caughtUp: source.caughtUp,
    async drain() {
      source.flush()
      await source.drained()
    },
    async refreshMetrics() {
      updateSourceMetrics()
      await refreshConsumerLag(admin, { groupId, topic }, metrics.consumerLag, logger)
    },
    async start() {
      const { brokers } = config.kafka
      const scorers = Object.keys(config.scorers)
      logger.info({ brokers, topic: config.kafka.topic, groupId, scorers }, 'tracescore starting')
      await waitForTopic(admin, config.kafka.topic, logger, starting.signal)
      await producer.connect()
      if (repartitioner) {
        await ensureRepartitionTopic(admin, config.kafka.topic, repartitioner.targetTopic)
        await repartitioner.start()
      }
      await source.start()
    },
    async stop() {
      starting.abort()
      await repartitioner?.stop()
      await source.stop({ commit: deps.range === undefined })
      await Promise.allSettled(sinks.map((sink) => sink.close()))
      await producer.disconnect().catch(() => {})
      await admin.disconnect().catch(() => {})
      updateSourceMetrics()
      logger.info({ stats: source.stats() }, 'tracescore stopped')
    },
  }
}

/**
 * Scoring of one released trace: transform, then every scorer on each of its agent runs, with the
 * token budgets. Called once per trace; the delivery queue retries only the delivery of its result.
 */
function scorerOf(config: TracescoreConfig, metrics: Metrics, logger: Logger, now?: () => number) {
  const budgets = Object.fromEntries(
    Object.entries(config.scorers).flatMap(([name, e]) =>
      e.dailyTokenBudget ? [[name, e.dailyTokenBudget]] : [],
    ),
  )
  const budget = new TokenBudget(budgets, now)
  configureJudgeFromConfig(config)
  return async (trace: IngestedTrace): Promise<TraceScores> => {
    const scores = await scoreTrace(trace.spans, {
      scorers: config.scorers,
      budget,
      metrics,
      now,
      agentSpanIds: trace.agentSpanIds,
      incomplete: trace.incomplete,
    })
    for (const d of scores.decisions)
      logger.debug({ traceId: d.traceId, spanId: d.spanId, scorer: d.scorer }, d.outcome)
    return scores
  }
}

/**
 * The configured sinks (plus `extra`), each making one attempt per delivery (the delivery queue
 * retries above them) and batching the scores of concurrently scored traces into one export.
 */
function sinksOf(config: TracescoreConfig, producer: Producer, extra: Sink[] = []): Sink[] {
  const oneAttempt = { retry: { retries: 0 } }
  return [...sinkConfigsOf(config, producer).map((c) => createSink({ ...c, ...oneAttempt })), ...extra].map(
    (sink) => coalesceDeliveries(sink),
  )
}

/** The sink list the configuration asks for; the Kafka score sink writes through the process's producer. */
export function sinkConfigsOf(config: TracescoreConfig, producer: Producer): SinkConfig[] {
  const { otlp, kafka, phoenix, langfuse, stdout } = config.sinks
  const list: SinkConfig[] = []
  if (otlp !== false) list.push({ type: 'otlp', ...otlp })
  if (kafka) list.push({ type: 'kafka', producer, topic: kafka.topic })
  if (phoenix) list.push({ type: 'phoenix', ...phoenix })
  if (langfuse) list.push({ type: 'langfuse', ...langfuse })
  if (stdout) list.push({ type: 'jsonl' })
  return list
}

/**
 * The repartition stage: records not keyed by trace id are re-keyed by trace into
 * `<topic>.by_trace` (OTLP/JSON), which the source then consumes.
 */
function repartitionerOf(config: TracescoreConfig, kafka: Kafka, producer: Producer, logger: Logger) {
  return createTraceRepartitioner({
    consumer: createSupervisedKafkajsConsumer({
      kafka,
      groupId: `${config.kafka.groupId}-repartition`,
      fromBeginning: config.kafka.fromBeginning,
      sessionTimeout: config.kafka.sessionTimeoutMs,
      logger,
    }),
    producer,
    sourceTopic: config.kafka.topic,
    encoding: config.kafka.encoding,
    deadLetterTopic: config.kafka.deadLetterTopic,
    logger,
  })
}
