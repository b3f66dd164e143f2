import type { ConsumerConfig, Kafka, Producer } from 'kafkajs'
import { configDefaults } from '../config/defaults.ts'
import { createLogger, type Logger } from '../ops/logger.ts'
import type { RetryPolicy } from '../sink/retry-policy.ts'
import { createDeadLetterProducer } from './dead-letter-producer.ts'
import type { OtlpEncodingOption } from './decode/index.ts'
import { createSupervisedKafkajsConsumer } from './kafkajs-consumer.ts'
import { createSpanSource, type SpanSource, type SpanSourceOptions } from './span-source.ts'

export type { IngestedTrace, SpanSource, SpanSourceStats } from './span-source.ts'

/** Settings of the Kafka span source. */
export interface KafkaSourceOptions<R>
  extends Omit<SpanSourceOptions<R>, 'consumer' | 'deadLetters' | 'topic' | 'encoding' | 'logger'> {
  /** The process's one kafkajs client (`createKafkaClient`). */
  kafka: Kafka
  /**
   * The process's producer, connected by the caller, for dead letters; without one the source
   * makes its own from `kafka` (connected on start, disconnected on stop).
   */
  producer?: Producer
  /** Consumer group. Default `tracescore`. */
  groupId?: string
  /** Topic of OTLP span records. Default `otlp_spans`. */
  topic?: string
  /** Where a group without committed offsets starts. Default false (the latest records). */
  fromBeginning?: boolean
  /** Encoding of the record values. Default `auto` (protobuf or OTLP/JSON, per record). */
  encoding?: OtlpEncodingOption
  /** Topic for records that cannot be decoded; `false` drops them (counted). Default `otlp_spans_dlq`. */
  deadLetterTopic?: string | false
  sessionTimeout?: number
  /** kafkajs `maxWaitTimeInMs` (config `kafka.fetchMaxWaitMs`). */
  maxWaitTimeMs?: number
  /** Further kafkajs consumer settings (fetch sizes, rack id...); they override the ones above. */
  consumerConfig?: Partial<ConsumerConfig>
  /** A consumer with no completed fetch for this long is replaced (see `createKafkajsConsumer`). */
  stallTimeoutMs?: number
  /** Backoff and limit of consumer replacements (default `retryPolicies.consumerRecovery`). */
  recoveryPolicy?: RetryPolicy
  logger?: Logger
}

/**
 * The span source on Kafka: the at-least-once core (`createSpanSource`) reading through a
 * supervised kafkajs consumer (a dead one is replaced), with dead letters produced to Kafka.
 */
export function createKafkaSource<R>(options: KafkaSourceOptions<R>): SpanSource {
  const logger = options.logger ?? createLogger('warn')
  const defaults = configDefaults.kafka
  const topic = options.topic ?? defaults.topic
  const ownProducer =
    options.producer === undefined ? options.kafka.producer({ allowAutoTopicCreation: true }) : undefined
  const producer = options.producer ?? ownProducer!
  const consumer = createSupervisedKafkajsConsumer({
    kafka: options.kafka,
    groupId: options.groupId ?? defaults.groupId,
    fromBeginning: options.fromBeginning ?? defaults.fromBeginning,
    sessionTimeout: options.sessionTimeout,
    maxWaitTimeMs: options.maxWaitTimeMs,
    consumerConfig: options.consumerConfig,
    stallTimeoutMs: options.stallTimeoutMs,
    recoveryPolicy: options.recoveryPolicy,
    logger,
    now: options.now,
  })
  const deadLetters = createDeadLetterProducer({
    topic: options.deadLetterTopic ?? defaults.deadLetterTopic,
    send: async (dlqTopic, messages) => {
      await producer.send({ topic: dlqTopic, acks: -1, messages })
    },
    logger,
  })
  const source = createSpanSource({
    ...options,
    topic,
    encoding: options.encoding ?? defaults.encoding,
    consumer,
    deadLetters,
    logger,
  })
  if (ownProducer === undefined) return source
  return {
    ...source,
    async start() {
      await ownProducer.connect()
      await source.start()
    },
    async stop(stopOptions) {
      await source.stop(stopOptions)
      await ownProducer.disconnect()
    },
  }
}
