import type { Message } from 'kafkajs'
import type { Logger } from '../ops/logger.ts'
import { type RetryPolicy, retryPolicies, retryWithBackoff, type Sleep } from '../sink/retry-policy.ts'
import { type BadRecord, deadLetterMessage, errorCode } from './dead-letter.ts'

/** Produces messages to a topic, acknowledged by every in-sync replica. */
type SendMessages = (topic: string, messages: Message[]) => Promise<void>

/** Settings of the dead-letter producer. */
interface DeadLetterProducerOptions {
  /** The dead-letter topic; `false` drops bad records (they are still logged and counted). */
  topic: string | false
  send: SendMessages
  logger: Logger
  /** Default `retryPolicies.delivery` (until produced or stopped). */
  policy?: RetryPolicy
  sleep?: Sleep
}

/** Sends undecodable records to the dead-letter topic; shared by the span source and the repartitioner. */
export interface DeadLetterProducer {
  /** Resolves once the records are in the dead-letter topic (retried under the policy). */
  send(records: readonly BadRecord[]): Promise<void>
  /** Records sent (or dropped with `topic: false`) so far. */
  count(): number
  /** Ends retries (shutdown): a retrying send rejects, its records stay uncommitted. */
  stop(): void
}

/**
 * Creates the dead-letter producer: each error code is logged once with a sample of the record
 * (later ones are only counted), and the copies carry the error and origin in headers.
 */
export function createDeadLetterProducer(options: DeadLetterProducerOptions): DeadLetterProducer {
  const { topic, send, logger } = options
  const loggedCodes = new Set<string>()
  let sent = 0
  const stopping = new AbortController()
  const logFirstOfEachCode = (records: readonly BadRecord[]) => {
    for (const record of records) {
      const code = errorCode(record.error)
      if (loggedCodes.has(code)) continue
      loggedCodes.add(code)
      logger.warn(
        {
          err: record.error,
          code,
          topic: record.topic,
          partition: record.partition,
          offset: record.offset,
          sample: record.value?.subarray(0, 64).toString('base64'),
          deadLetterTopic: topic,
        },
        'undecodable record sent to the dead-letter topic (later ones with this code are only counted)',
      )
    }
  }
  return {
    async send(records) {
      if (records.length === 0) return
      logFirstOfEachCode(records)
      if (topic !== false) {
        const messages = records.map(deadLetterMessage)
        await retryWithBackoff(() => send(topic, messages), {
          policy: options.policy ?? retryPolicies.delivery,
          signal: stopping.signal,
          sleep: options.sleep,
          onRetry: ({ attempt, delayMs, error }) =>
            logger.warn(
              { err: error, attempt, retryInMs: delayMs, topic },
              'dead-letter produce failed; retrying',
            ),
        })
      }
      sent += records.length
    },
    count: () => sent,
    stop: () => stopping.abort(),
  }
}
