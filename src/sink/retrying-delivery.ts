import type { RetryOptions } from './retry-policy.ts'
import { realSleep, resolveRetryPolicy, retryWithBackoff } from './retry-policy.ts'
import type { SinkStats } from './sink.ts'

/** Raised by `deliver` when a sink gave up: the last error is its `cause`. */
export class SinkDeliveryError extends Error {
  override readonly name = 'SinkDeliveryError'
  /** The sink that gave up. */
  readonly sink: string
  /** Attempts made, the first included. */
  readonly attempts: number
  /** Records in the failed delivery. */
  readonly records: number
  constructor(sink: string, attempts: number, records: number, cause: unknown) {
    super(
      `${sink}: delivery of ${records} score(s) failed after ${attempts} attempt(s): ${describe(cause)}`,
      {
        cause,
      },
    )
    this.sink = sink
    this.attempts = attempts
    this.records = records
  }
}

/**
 * Whether a retry may fix `error`: not for a 4xx answer other than 408/429, nor for an error
 * marked `retryable: false`; `retryable: true` always retries. (KafkaJS's own `retriable` flag is
 * ignored on purpose: its "retries exceeded" error is marked non-retriable, yet a broker that is
 * back a minute later takes the records.)
 */
export function isRetryableError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return true
  const { retryable, status, code } = error as Record<string, unknown>
  if (typeof retryable === 'boolean') return retryable
  const httpStatus = typeof status === 'number' ? status : typeof code === 'number' ? code : undefined
  if (httpStatus === undefined) return true
  return !(httpStatus >= 400 && httpStatus < 500 && httpStatus !== 408 && httpStatus !== 429)
}

/** Options of a retrying delivery. */
interface RetryingDeliveryOptions extends RetryOptions {
  /** The sink's name, used in errors and retry events. */
  sink: string
}

/** Runs delivery attempts under a retry policy and keeps the sink's counters. */
export interface RetryingDelivery {
  /** Tries `attempt` until it resolves or the budget is spent; `records` is what is counted. */
  run(records: number, attempt: () => Promise<void>): Promise<void>
  /** Counts records that needed no delivery. */
  skip(records: number): void
  /**
   * Stops retrying (the sink is closing): a waiting retry gives up at once and later failures are
   * not retried, so shutdown is not held up by a backend that is down. The offsets stay uncommitted.
   */
  stop(): void
  stats(): SinkStats
}

/**
 * Creates the retry loop and counters that every sink shares: `retryWithBackoff` under the sink's
 * policy (`retryPolicies.sink` unless the config gives one; the pipeline gives `retries: 0`, since
 * its delivery queue retries above the sinks).
 */
export function createRetryingDelivery({
  sink,
  retry,
  sleep = realSleep,
  onRetry,
}: RetryingDeliveryOptions): RetryingDelivery {
  const policy = resolveRetryPolicy(retry)
  const counters: SinkStats = { delivered: 0, failed: 0, retries: 0, skipped: 0 }
  const stopping = new AbortController()
  return {
    async run(records, attempt) {
      let attempts = 0
      let waiting = false // between a failure and its retry: a stop here ends the wait
      try {
        await retryWithBackoff(
          () => {
            attempts++
            waiting = false
            return attempt()
          },
          {
            policy,
            sleep,
            signal: stopping.signal,
            shouldRetry: isRetryableError,
            onRetry: ({ attempt: n, delayMs, error }) => {
              counters.retries++
              waiting = true
              onRetry?.({ sink, attempt: n, delayMs, error })
            },
          },
        )
        counters.delivered += records
      } catch (error) {
        counters.failed += records
        const cause = waiting ? new Error('sink closed while retrying', { cause: error }) : error
        throw new SinkDeliveryError(sink, attempts, records, cause)
      }
    },
    skip(records) {
      counters.skipped += records
    },
    stop() {
      stopping.abort()
    },
    stats: () => ({ ...counters }),
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error)
}
