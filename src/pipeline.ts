import { type Kafka, Partitioners } from 'kafkajs'
import type { TracescoreConfig } from './config/index.ts'
import { createKafkaClient } from './ingest/kafka-client.ts'
import { createKafkaIngest, type ReadRange } from './ingest/kafka-ingest.ts'
import type { IngestedTrace } from './ingest/kafka-source.ts'
import { type SamplingDoor, samplingDoorOf } from './ingest/sampling-door.ts'
import type { SpanSourceStats } from './ingest/span-source.ts'
import {
  createLedgerStage,
  type LedgerRecording,
  type LedgerStage,
  ledgerEnabled,
} from './ledger/ledger-stage.ts'
import { createGapLog } from './ops/gap-log.ts'
import { createLogger, type Logger } from './ops/logger.ts'
import { createMetrics, type Metrics } from './ops/metrics.ts'
import { sourceMetricsRefresher } from './ops/source-metrics.ts'
import { scoreTrace } from './score-trace.ts'
import type { Judge } from './scoring/judge.ts'
import { judgeFromConfig } from './scoring/judge-from-config.ts'
import {
  type DeliverableScores,
  decisionsTarget,
  deliverableOf,
  sinkTarget,
} from './sink/delivery-targets.ts'
import type { Sink } from './sink/index.ts'
import { sinksFromConfig } from './sink/sinks-from-config.ts'
import { isAgentRunSpan, isGenAiSpan } from './transform/index.ts'
import { useProfiles } from './transform/profiles/index.ts'

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
export type PipelineRange = ReadRange

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
  /** The judge to score with; `judgeFromConfig(config)` when absent (a model resolver goes here). */
  judge?: Judge
  /** With the ledger on: score every run again instead of delivering what the ledger has (`replay --rescore`). */
  rescore?: boolean
}

/** What the delivery queue holds per trace: its scores, and what the ledger must record first. */
type ScoredTrace = DeliverableScores & { ledger?: LedgerRecording }

/** Builds the pipeline the configuration describes (`tracescore run`, or embedded in an app). */
export function createPipeline(config: TracescoreConfig, deps: PipelineDeps = {}): Pipeline {
  // Before any span is read: the profiles' match keys join the role keys the decoder reads at once.
  useProfiles(config.conventions)
  const logger = deps.logger ?? createLogger(config.log.level)
  const metrics = deps.metrics ?? createMetrics()
  // One client per process: the consumers, the producer and the admin all come from it.
  const kafka = deps.kafka ?? createKafkaClient(config.kafka, logger)
  // The default partitioner, chosen explicitly: kafkajs warns about its v2 change otherwise.
  const producer = kafka.producer({
    allowAutoTopicCreation: true,
    createPartitioner: Partitioners.DefaultPartitioner,
  })
  const admin = kafka.admin()
  const sinks = sinksFromConfig(config.sinks, producer, deps.extraSinks, logger)
  const { decisionsTopic } = config.kafka
  const ledger = createLedgerStage({
    config,
    kafka,
    producer,
    admin,
    logger,
    metrics,
    replay: deps.range !== undefined,
    rescore: deps.rescore,
    now: deps.now,
  })
  const score = scorerOf(
    config,
    deps.judge ?? judgeFromConfig(config, { now: deps.now }),
    metrics,
    logger,
    ledger,
    deps.now,
  )
  const ingest = createKafkaIngest<ScoredTrace>({
    config,
    kafka,
    producer,
    admin,
    logger,
    range: deps.range,
    now: deps.now,
    isAgentRunSpan,
    isGenAiSpan,
    door: doorOf(config, deps),
    process: score,
    onAssigned: ledger.onAssigned,
    targets: ledger.targets<ScoredTrace>([
      ...sinks.map((sink) => sinkTarget(sink, metrics)),
      ...(decisionsTopic ? [decisionsTarget(producer, decisionsTopic)] : []),
    ]),
  })
  const { source, groupId, topic } = ingest
  const sourceMetrics = sourceMetricsRefresher(metrics, source.stats, { admin, groupId, topic, logger })
  const starting = new AbortController()
  return {
    metrics,
    stats: source.stats,
    ready: source.ready,
    failed: ingest.failed,
    caughtUp: source.caughtUp,
    async drain() {
      source.flush()
      await source.drained()
    },
    refreshMetrics: sourceMetrics.refresh,
    async start() {
      const scorers = Object.keys(config.scorers)
      const { brokers } = config.kafka
      logger.info({ brokers, topic: config.kafka.topic, groupId, scorers }, 'tracescore starting')
      // Before consuming: no run is scored before its partition's ledger entries are loaded.
      await ledger.start(topic, starting.signal)
      await ingest.start(starting.signal)
    },
    async stop() {
      starting.abort()
      await ingest.stop()
      await ledger.stop()
      await Promise.allSettled(sinks.map((sink) => sink.close()))
      await producer.disconnect().catch(() => {})
      await admin.disconnect().catch(() => {})
      sourceMetrics.update()
      logger.info({ stats: source.stats() }, 'tracescore stopped')
    },
  }
}

/**
 * The sampling door of the configured scorers: traces none of them can score are passed by as
 * they are read. None in a replay that delivers again what the score ledger recorded (no
 * `--rescore`): the ledger may hold scores of traces a rate lowered since would now pass by.
 */
function doorOf(config: TracescoreConfig, deps: PipelineDeps): SamplingDoor | undefined {
  if (deps.range !== undefined && !deps.rescore && ledgerEnabled(config)) return undefined
  return samplingDoorOf(config.scorers)
}

/**
 * Scoring of one released trace: transform, then every scorer on each of its agent runs, with the
 * pipeline's judge. Called once per trace; the delivery queue retries only the delivery of its result.
 */
function scorerOf(
  config: TracescoreConfig,
  judge: Judge,
  metrics: Metrics,
  logger: Logger,
  ledger: LedgerStage,
  now?: () => number,
) {
  const logGaps = createGapLog(logger)
  return async (trace: IngestedTrace): Promise<ScoredTrace> => {
    // With the ledger: after the trace's partitions are loaded, runs it has are not scored again.
    const fromLedger = await ledger.scoring()?.prepare(trace)
    const scores = await scoreTrace(trace.spans, {
      scorers: config.scorers,
      judge,
      metrics,
      now,
      scoredRunSpanIds: trace.scoredAgentSpanIds,
      incomplete: trace.incomplete,
      recorded: fromLedger?.recorded,
      answers: fromLedger?.answers,
    })
    logGaps(scores, trace.traceId)
    for (const d of scores.decisions)
      logger.debug({ traceId: d.traceId, spanId: d.spanId, scorer: d.scorer }, d.outcome)
    return { ...deliverableOf(scores), ...(fromLedger ? { ledger: fromLedger.recording(scores) } : {}) }
  }
}
