import type { Admin } from 'kafkajs'
import type { Logger } from '../ops/logger.ts'
import { retryPolicies, retryWithBackoff } from '../sink/retry-policy.ts'
import { describeKafkaError } from './kafka-security.ts'

/**
 * Waits until the broker answers and the topic exists (a service may start before the Collector
 * created it, or while the broker restarts), logging what it waits for; retries under
 * `retryPolicies.startup` until `signal` aborts (then rejects with the abort reason).
 */
export async function waitForTopic(
  admin: Admin,
  topic: string,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  await retryWithBackoff(
    async () => {
      signal.throwIfAborted()
      let topics: string[]
      try {
        await admin.connect()
        topics = await admin.listTopics()
      } catch (error) {
        // Names the setting at fault when there is one (kafka.sasl, kafka.ssl).
        throw new Error(describeKafkaError(error))
      }
      if (!topics.includes(topic)) throw new Error(`topic ${topic} does not exist yet`)
    },
    {
      policy: retryPolicies.startup,
      signal,
      onRetry: ({ attempt, delayMs, error }) =>
        logger.warn({ attempt, retryInMs: delayMs }, `waiting before consuming: ${(error as Error).message}`),
    },
  )
  signal.throwIfAborted()
}

/**
 * Creates `targetTopic` with as many partitions as `rawTopic` (the repartition stage's internal topic;
 * the logs topic, which a producer that exported no log record yet has not made), if missing.
 */
export async function ensureRepartitionTopic(
  admin: Admin,
  rawTopic: string,
  targetTopic: string,
): Promise<void> {
  const existing = await admin.listTopics()
  if (existing.includes(targetTopic)) return
  const partitions = existing.includes(rawTopic) ? (await admin.fetchTopicOffsets(rawTopic)).length : 1
  await admin.createTopics({
    topics: [{ topic: targetTopic, numPartitions: partitions }],
    waitForLeaders: true,
  })
}
