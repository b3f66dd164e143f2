import type { Message, Producer } from 'kafkajs'
import { configDefaults } from '../../config/defaults.ts'
import { createLogger, type Logger } from '../../ops/logger.ts'
import { retryPolicies, retryWithBackoff } from '../../sink/retry-policy.ts'
import type { ConsumedRecord, ConsumerHandlers, ConsumerPort } from '../consumer-port.ts'
import { type BadRecord, badRecordOf } from '../dead-letter.ts'
import { createDeadLetterProducer } from '../dead-letter-producer.ts'
import type { OtlpEncodingOption } from '../decode/index.ts'
import { type PerTraceRecords, perTraceRecords, type RepartitionSignal } from './per-trace-records.ts'

/** Settings of the repartition stage. */
interface TraceRepartitionerOptions {
  /** Its consumer-group member on `sourceTopic` (a supervised kafkajs consumer in the pipeline). */
  consumer: ConsumerPort
  /** The process's producer, connected by the caller. */
  producer: Producer
  /** Raw topic, records not keyed by trace. Default `otlp_spans`. */
  sourceTopic?: string
  /** Internal topic of per-trace records keyed by hex trace id (`otlp_json`). Default `<sourceTopic>.by_trace`. */
  targetTopic?: string
  /**
   * What the raw topic carries. Default `spans`; `logs` (the logs topic): its log records go to the
   * span topic's `targetTopic`, marked by the signal header, so a trace's spans and log records
   * meet on one partition.
   */
  signal?: RepartitionSignal
  /** Encoding of the raw records. Default `auto` (protobuf or OTLP/JSON, per record). */
  encoding?: OtlpEncodingOption
  /** Undecodable records go here; `false` drops them. Default `otlp_spans_dlq` (`kafka.deadLetterTopic`). */
  deadLetterTopic?: string | false
  logger?: Logger
}

/** Counters of the repartition stage. */
interface TraceRepartitionerStats {
  records: number
  /** Spans or log records read (by `signal`). */
  spans: number
  /** Log records left out: no trace or span id. */
  uncorrelated: number
  traceRecords: number
  deadLetters: number
  commits: number
}

/** A running repartition stage. */
export interface TraceRepartitioner {
  start(): Promise<void>
  stop(): Promise<void>
  stats(): TraceRepartitionerStats
  /** The internal topic the span source should consume (with encoding `otlp_json`). */
  readonly targetTopic: string
  /** Resolves with the error when its consumer died for good. */
  readonly failed: Promise<unknown>
}

/**
 * Gives each trace to one instance when the upstream records are not keyed by trace: consumes the
 * raw topic, splits each record's spans by trace, produces one record per trace keyed by the 32-hex
 * trace id (like the Collector's `partition_traces_by_id`) to an internal topic, with acks from all
 * replicas, and commits the raw offsets only after that produce succeeded.
 */
export function createTraceRepartitioner(options: TraceRepartitionerOptions): TraceRepartitioner {
  const { consumer, producer } = options
  const defaults = configDefaults.kafka
  const sourceTopic = options.sourceTopic ?? defaults.topic
  const targetTopic = options.targetTopic ?? `${sourceTopic}.by_trace`
  const encoding = options.encoding ?? defaults.encoding
  const logger = options.logger ?? createLogger('warn')
  const signal = options.signal ?? 'spans'
  const counters = { records: 0, spans: 0, uncorrelated: 0, traceRecords: 0, commits: 0 }
  const stopping = new AbortController()
  const send = async (topic: string, messages: Message[]) => {
    await producer.send({ topic, messages, acks: -1 })
  }
  const deadLetters = createDeadLetterProducer({
    topic: options.deadLetterTopic ?? defaults.deadLetterTopic,
    send,
    logger,
  })
  let reportFailure: (error: unknown) => void = () => {}
  const failed = new Promise<unknown>((resolve) => {
    reportFailure = resolve
  })

  /** Adds the per-trace records of one raw record to `out` (or the record to `bad`). */
  const split = (partition: number, record: ConsumedRecord, out: Message[], bad: BadRecord[]) => {
    counters.records++
    if (record.value === null || record.value.length === 0) return
    let perTrace: PerTraceRecords
    try {
      perTrace = perTraceRecords(signal, record.value, encoding, record.timestamp)
    } catch (error) {
      bad.push(badRecordOf(sourceTopic, partition, record, error))
      return
    }
    counters.spans += perTrace.items
    counters.uncorrelated += perTrace.dropped
    for (const message of perTrace.messages) out.push(message)
  }

  const lastCommits = lastCommitsOf(consumer, sourceTopic, logger, stopping.signal)

  const handlers: ConsumerHandlers = {
    async onBatch(batch) {
      const last = batch.records[batch.records.length - 1]
      if (last === undefined || stopping.signal.aborted) return undefined
      const messages: Message[] = []
      const bad: BadRecord[] = []
      for (const record of batch.records) split(batch.partition, record, messages, bad)
      await deadLetters.send(bad)
      if (messages.length > 0)
        await retryWithBackoff(() => send(targetTopic, messages), {
          policy: retryPolicies.delivery,
          signal: stopping.signal,
          onRetry: ({ error, attempt }) =>
            logger.warn({ err: error, attempt, topic: targetTopic }, 'repartition produce failed; retrying'),
        })
      counters.traceRecords += messages.length
      // A failed commit is not retried: the next batch's commit covers it (at worst some raw
      // records are split again after a restart, and the assembler drops the duplicate spans).
      const next = String(BigInt(last.offset) + 1n)
      await consumer.commit([{ topic: sourceTopic, partition: batch.partition, offset: next }]).then(
        () => {
          counters.commits++
          lastCommits.set(batch.partition, next)
        },
        (error: unknown) => logger.warn({ err: error }, 'repartition commit failed; the next one covers it'),
      )
      return last.offset
    },
    onAssigned(partitions) {
      logger.info({ topic: sourceTopic, partitions }, 'repartitioner joined its consumer group')
      lastCommits.joined(partitions)
    },
    onCrash(error, recovering) {
      if (recovering) return
      logger.error({ err: error }, 'repartitioner consumer crashed and could not be recovered')
      reportFailure(error)
    },
  }

  return {
    targetTopic,
    failed,
    start: () => consumer.start(sourceTopic, handlers),
    async stop() {
      stopping.abort()
      deadLetters.stop()
      await consumer.stop()
    },
    stats: () => ({ ...counters, deadLetters: deadLetters.count() }),
  }
}

/**
 * The offset last committed per partition, committed again after each join (see
 * `OffsetTracker.commitAgain`): kafkajs may have answered the last commit without making it while
 * it restarted towards this join.
 */
function lastCommitsOf(consumer: ConsumerPort, topic: string, logger: Logger, stopped: AbortSignal) {
  const last = new Map<number, string>()
  const commitAgain = () => {
    const offsets = [...last].map(([partition, offset]) => ({ topic, partition, offset }))
    if (offsets.length === 0 || stopped.aborted) return
    consumer
      .commit(offsets)
      .catch((error: unknown) =>
        logger.warn({ err: error }, 'repartition commit after the join failed; the next one covers it'),
      )
  }
  return {
    set: (partition: number, offset: string) => last.set(partition, offset),
    joined(partitions: readonly number[]) {
      for (const partition of [...last.keys()]) if (!partitions.includes(partition)) last.delete(partition)
      // After the join's own microtasks, when its consumer runs again (a commit before that is
      // answered the same way).
      setTimeout(commitAgain, 0).unref()
    },
  }
}
