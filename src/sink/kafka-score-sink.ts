import { Kafka, type KafkaConfig, logLevel, type Producer } from 'kafkajs'
import { prepareKafkajs } from '../ingest/kafka-client.ts'
import { createCountingSink } from './counting-sink.ts'
import type { RetryOptions } from './retry-policy.ts'
import { scoreMessageSchema, toScoreMessage } from './score-message.ts'
import type { CountingSink } from './sink.ts'

/** Configuration of the Kafka score-topic sink: an existing producer, or brokers to create one. */
export type KafkaScoreSinkConfig = RetryOptions & {
  /** The score topic. */
  topic: string
  /** -1 (all in-sync replicas, default), 1 or 0. */
  acks?: -1 | 0 | 1
} & (
    | {
        /** A producer owned by the caller, who connects it; `close` leaves it connected. */
        producer: Producer
      }
    | {
        /** Broker addresses, e.g. `['127.0.0.1:9092']`. */
        brokers: string[]
        clientId?: string
        /** Further KafkaJS client settings (ssl, sasl, timeouts, KafkaJS's own retry). */
        client?: Omit<KafkaConfig, 'brokers' | 'clientId'>
      }
  )

/**
 * Writes each score as one JSON record (`ScoreMessage`, see `score-message.ts`) to a Kafka topic,
 * keyed by trace id so that all scores of a trace land in one partition, in order. `deliver`
 * resolves when the broker acknowledged the whole batch (acks=-1 by default).
 */
export function createKafkaScoreSink(config: KafkaScoreSinkConfig): CountingSink {
  if (!config.topic) throw new Error('kafka.topic: expected a topic name, got nothing')
  const owned = !('producer' in config)
  prepareKafkajs()
  const producer: Producer =
    'producer' in config
      ? config.producer
      : new Kafka({
          logLevel: logLevel.NOTHING,
          ...config.client,
          clientId: config.clientId ?? 'tracescore-scores',
          brokers: config.brokers,
        }).producer({ allowAutoTopicCreation: true })
  let connected: Promise<void> | undefined = owned ? undefined : Promise.resolve()
  return createCountingSink(
    'kafka',
    config,
    async (records, delivery) => {
      if (records.length === 0) return
      const messages = records.map((record) => {
        const message = toScoreMessage(record)
        return {
          key: message.traceId,
          value: JSON.stringify(message),
          timestamp: String(record.timestampMs),
          headers: { 'content-type': 'application/json', 'tracescore-schema': scoreMessageSchema },
        }
      })
      await delivery.run(records.length, async () => {
        connected ??= producer.connect().catch((error: unknown) => {
          connected = undefined
          throw error
        })
        await connected
        await producer.send({ topic: config.topic, messages, acks: config.acks ?? -1 })
      })
    },
    async () => {
      if (owned && connected) await producer.disconnect()
    },
  )
}
