import { Kafka, type KafkaConfig, logLevel } from 'kafkajs'
import type { TracescoreConfig } from '../config/index.ts'
import { kafkajsLogCreator } from '../ops/kafkajs-log.ts'
import type { Logger } from '../ops/logger.ts'
import { registerCompressionCodecs } from './codecs.ts'
import { kafkaTlsOptions } from './kafka-security.ts'
import { fixKafkajsRequestQueue } from './kafkajs-request-queue.ts'

/**
 * kafkajs's process-wide set-up, idempotent, before any client is made (whoever made it): the
 * snappy, lz4 and zstd codecs, since records may come compressed with any of them (the Collector's
 * `producer.compression`), and the fix of kafkajs's idle 1 ms timer loop.
 */
export function prepareKafkajs(): void {
  registerCompressionCodecs()
  fixKafkajsRequestQueue()
}

/**
 * The process's one kafkajs client, for the configured brokers, TLS and SASL: the source's
 * consumer, the repartitioner, the producer (dead letters, decisions, the Kafka score sink) and
 * the admin (start-up, lag) all come from it, after {@link prepareKafkajs}.
 * kafkajs's log lines (warnings and errors) go through `logger`, the process's one logger.
 */
export function createKafkaClient(
  kafka: TracescoreConfig['kafka'],
  logger: Logger,
  overrides: Partial<KafkaConfig> = {},
): Kafka {
  prepareKafkajs()
  return new Kafka({
    clientId: kafka.clientId,
    brokers: kafka.brokers,
    ssl: kafkaTlsOptions(kafka.ssl),
    ...(kafka.sasl ? { sasl: kafka.sasl } : {}),
    logLevel: logLevel.WARN,
    logCreator: kafkajsLogCreator(logger),
    ...overrides,
  })
}
