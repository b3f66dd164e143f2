import { Kafka, logLevel } from 'kafkajs'
import type { TracescoreConfig } from './config/index.ts'
import { describeKafkaError, kafkaTlsOptions } from './ingest/kafka-security.ts'
import { createKafkaSource, type KafkaSource, type KafkaSourceStats } from './ingest/kafka-source.ts'
import { createTraceRepartitioner } from './ingest/repartition/trace-repartitioner.ts'
import { createLogger, type Logger } from './ops/logger.ts'
import { createMetrics, type Metrics } from './ops/metrics.ts'
import { scoreTrace } from './score-trace.ts'
import { configureJudgeFromConfig } from './scoring/judge-governance.ts'
import type { Decision } from './scoring/registry.ts'
import { TokenBudget } from './scoring/token-budget.ts'
import { coalesceDeliveries, createSinks, type Sink, type SinkConfig } from './sink/index.ts'
import { isAgentRunSpan } from './transform/index.ts'

/** A running tracescore pipeline: Kafka source → transform → scoring → sinks. */
export interface Pipeline {
  start(): Promise<void>
  /** Drains in-flight runs, commits what the sinks acknowledged, closes the sinks. */
  stop(): Promise<void>
  /** Counters of the source (records, spans, traces, dead letters, commits...). */
  stats(): KafkaSourceStats
  readonly metrics: Metrics
}

/** What the pipeline may be given instead of building it from the configuration. */
export interface PipelineDeps {
  logger?: Logger
  metrics?: Metrics
  /** Extra sinks, delivered to along with the configured ones (the demo's summary uses this). */
  extraSinks?: Sink[]
  now?: () => number
}

/** The JSON record of one decision on the decisions topic (`kafka.decisionsTopic`). */
export function toDecisionMessage(decision: Decision) {
  return {
    traceId: decision.traceId,
    spanId: decision.spanId,
    scorer: decision.scorer,
    outcome: decision.outcome,
    ...(decision.detail ? { detail: decision.detail } : {}),
    ...(decision.record?.score !== undefined ? { score: decision.record.score } : {}),
    ...(decision.record?.error ? { error: decision.record.error } : {}),
  }
}

/**
 * Waits until the broker answers and the topic exists (a service may start before the Collector
 * created it, or while the broker restarts), logging what it waits for; retries with backoff.
 */
export async function waitForTopic(
  kafka: Kafka,
  topic: string,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const admin = kafka.admin()
    let problem: string
    try {
      await admin.connect()
      if ((await admin.listTopics()).includes(topic)) return
      problem = `topic ${topic} does not exist yet`
    } catch (error) {
      problem = describeKafkaError(error)
    } finally {
      await admin.disconnect().catch(() => {})
    }
    const delay = Math.min(30_000, 500 * 2 ** Math.min(attempt, 6))
    logger.warn({ attempt: attempt + 1, retryInMs: delay }, `waiting before consuming: ${problem}`)
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, delay)
      signal.addEventListener('abort', () => {
        clearTimeout(timer)
        resolve()
      })
    })
    signal.throwIfAborted()
  }
}

/** Creates the repartition stage's internal topic, with as many partitions as the raw topic, if missing. */
async function ensureRepartitionTopic(kafka: Kafka, rawTopic: string, targetTopic: string): Promise<void> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    const existing = await admin.listTopics()
    if (existing.includes(targetTopic)) return
    const raw = existing.includes(rawTopic) ? (await admin.fetchTopicOffsets(rawTopic)).length : 1
    await admin.createTopics({ topics: [{ topic: targetTopic, numPartitions: raw }], waitForLeaders: true })
  } finally {
    await admin.disconnect()
  }
}

/** The sink list the configuration asks for. */
export function sinkConfigsOf(config: TracescoreConfig): SinkConfig[] {
  const { otlp, kafka, phoenix, langfuse, stdout } = config.sinks
  const list: SinkConfig[] = []
  if (otlp !== false) list.push({ type: 'otlp', ...otlp })
  if (kafka)
    list.push({
      type: 'kafka',
      brokers: config.kafka.brokers,
      topic: kafka.topic,
      client: kafkaSecurityOf(config),
    })
  if (phoenix) list.push({ type: 'phoenix', ...phoenix })
  if (langfuse) list.push({ type: 'langfuse', ...langfuse })
  if (stdout) list.push({ type: 'jsonl' })
  return list
}

/** The TLS and SASL settings of the configured Kafka cluster, as kafkajs takes them. */
function kafkaSecurityOf(config: TracescoreConfig) {
  const { ssl, sasl } = config.kafka
  return { ssl: kafkaTlsOptions(ssl), ...(sasl ? { sasl } : {}), logLevel: logLevel.WARN }
}

/** The kafkajs client for the configured brokers, TLS and SASL. */
export function kafkaClientOf(config: TracescoreConfig): Kafka {
  return new Kafka({
    clientId: config.kafka.clientId,
    brokers: config.kafka.brokers,
    ...kafkaSecurityOf(config),
  })
}

/** Builds the pipeline the configuration describes (`tracescore run`, or embedded in an app). */
export function createPipeline(config: TracescoreConfig, deps: PipelineDeps = {}): Pipeline {
  const logger = deps.logger ?? createLogger(config.log.level)
  const metrics = deps.metrics ?? createMetrics()
  // Many traces are scored at once; their scores leave in shared batches (one export per batch).
  const sinks = coalesceDeliveries(createSinks([...sinkConfigsOf(config), ...(deps.extraSinks ?? [])]))
  const budgets = Object.fromEntries(
    Object.entries(config.scorers).flatMap(([name, e]) =>
      e.dailyTokenBudget ? [[name, e.dailyTokenBudget]] : [],
    ),
  )
  const budget = new TokenBudget(budgets, deps.now)
  configureJudgeFromConfig(config)

  const decisionsProducer = config.kafka.decisionsTopic ? kafkaClientOf(config).producer() : undefined

  // Records not keyed by trace id go through the repartition stage first: it re-keys them by
  // trace into `<topic>.by_trace` (OTLP/JSON), which the source then consumes.
  const repartitioner = config.kafka.repartition
    ? createTraceRepartitioner({
        kafka: kafkaClientOf(config),
        groupId: `${config.kafka.groupId}-repartition`,
        sourceTopic: config.kafka.topic,
        encoding: config.kafka.encoding,
        deadLetterTopic: config.kafka.deadLetterTopic,
        fromBeginning: config.kafka.fromBeginning,
        logger,
      })
    : undefined

  const source: KafkaSource = createKafkaSource({
    kafka: kafkaClientOf(config),
    groupId: config.kafka.groupId,
    topic: repartitioner?.targetTopic ?? config.kafka.topic,
    fromBeginning: repartitioner ? true : config.kafka.fromBeginning,
    encoding: repartitioner ? 'otlp_json' : config.kafka.encoding,
    deadLetterTopic: config.kafka.deadLetterTopic,
    ...config.assembly,
    isAgentRunSpan,
    logger,
    now: deps.now,
    onTrace: async (trace) => {
      const { records, decisions } = await scoreTrace(trace.spans, {
        scorers: config.scorers,
        budget,
        metrics,
        now: deps.now,
        agentSpanIds: trace.agentSpanIds,
        incomplete: trace.incomplete,
      })
      for (const d of decisions)
        logger.debug({ traceId: d.traceId, spanId: d.spanId, scorer: d.scorer }, d.outcome)
      if (decisionsProducer && decisions.length > 0) {
        await decisionsProducer.send({
          topic: config.kafka.decisionsTopic!,
          acks: -1,
          messages: decisions.map((d) => ({ key: d.traceId, value: JSON.stringify(toDecisionMessage(d)) })),
        })
      }
      if (records.length === 0) return
      try {
        await sinks.deliver(records)
        metrics.sinkDeliveries.inc({ sink: 'all', result: 'delivered' }, records.length)
      } catch (error) {
        metrics.sinkDeliveries.inc({ sink: 'all', result: 'failed' }, records.length)
        logger.warn({ err: error, traceId: trace.traceId }, 'score delivery failed; offsets held, will retry')
        throw error
      }
    },
  })

  // Source counters become Prometheus counters/gauges at scrape time.
  let last = source.stats()
  const refresh = () => {
    const now = source.stats()
    const delta = (key: 'records' | 'spans' | 'deadLetters' | 'lateSpans' | 'tracesReleased') => {
      const d = (now[key] ?? 0) - (last[key] ?? 0)
      return Number.isFinite(d) && d > 0 ? d : 0
    }
    metrics.records.inc(delta('records'))
    metrics.spans.inc(delta('spans'))
    metrics.deadLetters.inc(delta('deadLetters'))
    metrics.lateSpans.inc(delta('lateSpans'))
    metrics.traces.inc({ complete: 'true' }, delta('tracesReleased'))
    metrics.bufferedSpans.set(now.bufferedSpans)
    last = now
  }
  // Consumer lag: high watermark minus the group's committed offset, read at scrape time.
  const kafka = kafkaClientOf(config)
  const admin = kafka.admin()
  let adminConnected = false
  const refreshLag = async () => {
    try {
      if (!adminConnected) {
        await admin.connect()
        adminConnected = true
      }
      const topic = repartitioner?.targetTopic ?? config.kafka.topic
      const { groupId } = config.kafka
      const [ends, committed] = await Promise.all([
        admin.fetchTopicOffsets(topic),
        admin.fetchOffsets({ groupId, topics: [topic] }),
      ])
      const done = new Map(committed[0]?.partitions.map((p) => [p.partition, Number(p.offset)]) ?? [])
      for (const end of ends) {
        const at = done.get(end.partition) ?? -1
        const low = Number(end.low)
        metrics.consumerLag.set({ partition: String(end.partition) }, Number(end.high) - (at >= 0 ? at : low))
      }
    } catch (error) {
      logger.debug({ err: error }, 'consumer lag not available')
    }
  }
  const originalMetrics = metrics.registry.metrics.bind(metrics.registry)
  metrics.registry.metrics = async () => {
    refresh()
    await refreshLag()
    return originalMetrics()
  }

  const starting = new AbortController()
  return {
    metrics,
    stats: () => source.stats(),
    async start() {
      logger.info(
        {
          brokers: config.kafka.brokers,
          topic: config.kafka.topic,
          groupId: config.kafka.groupId,
          scorers: Object.keys(config.scorers),
        },
        'tracescore starting',
      )
      await waitForTopic(kafkaClientOf(config), config.kafka.topic, logger, starting.signal)
      await decisionsProducer?.connect()
      if (repartitioner)
        await ensureRepartitionTopic(kafkaClientOf(config), config.kafka.topic, repartitioner.targetTopic)
      await repartitioner?.start()
      await source.start()
    },
    async stop() {
      starting.abort()
      await repartitioner?.stop()
      await source.stop()
      if (adminConnected) await admin.disconnect().catch(() => {})
      await sinks.close()
      await decisionsProducer?.disconnect()
      refresh()
      logger.info({ stats: source.stats() }, 'tracescore stopped')
    },
  }
}
