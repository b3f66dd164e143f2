/**
 * The one retry policy of tracescore: exponential backoff with jitter, and the one loop that
 * applies it. Every layer that retries takes its policy from `retryPolicies` below, so who
 * retries what, and for how long, is written in one place (outermost first):
 *
 * | layer | what it retries | policy | then |
 * | --- | --- | --- | --- |
 * | consumer recovery (`ingest/consumer-supervisor.ts`) | a crashed or stalled Kafka consumer, replaced by a new one | `consumerRecovery`: 8 tries, 1 s → 60 s (~5 min) | not ready, exit 1 |
 * | start-up (`ingest/kafka-topics.ts` `waitForTopic`) | broker unreachable, topic missing | `startup`: forever, 500 ms → 30 s | until stopped |
 * | delivery (`ingest/delivery-queue.ts`, dead letters) | each (trace, sink) pair not yet acknowledged | `delivery`: forever, 250 ms → 30 s | offsets wait, backpressure pauses reading |
 * | sink (`sink/retrying-delivery.ts`) | one batch to one backend | in the pipeline none (`retries: 0`): the delivery layer above retries; alone, `sink` (~1 min) | rejects |
 * | kafkajs requests | one broker request | kafkajs's own `retry` (seconds) | the layer above |
 *
 * Scoring is not a layer here: judge calls, budgets and decisions happen once per (run, scorer);
 * a failed delivery retries only the delivery.
 */

/** Waits `ms` milliseconds; injectable so tests run retries without real time passing. */
export type Sleep = (ms: number) => Promise<void>

/** How a failed operation is retried. */
export interface RetryPolicy {
  /** Retries after the first attempt; 0 disables retrying, `Infinity` retries until stopped. */
  retries: number
  /** Delay before the first retry. */
  initialDelayMs: number
  /** Upper bound of any single delay. */
  maxDelayMs: number
  /** Growth of the delay from one retry to the next. */
  multiplier: number
  /** Random spread of each delay, as a fraction (0.2 = ±20%). */
  jitter: number
}

/** One retry about to happen, for logs and metrics. */
export interface RetryEvent {
  /** The sink that retries. */
  sink: string
  /** 1 for the first retry. */
  attempt: number
  delayMs: number
  error: unknown
}

/** The retry settings every sink config takes. */
export interface RetryOptions {
  retry?: Partial<RetryPolicy>
  /** Injectable for tests; real time by default. */
  sleep?: Sleep
  /** Called before each retry (e.g. to log the backend error once per retry). */
  onRetry?: (event: RetryEvent) => void
}

/** The policy of each layer that retries (see the table at the top of this file). */
export const retryPolicies = {
  /** A sink used on its own: about 1 minute of retries, then the delivery rejects. */
  sink: { retries: 8, initialDelayMs: 250, maxDelayMs: 15_000, multiplier: 2, jitter: 0.2 },
  /** A delivery (or dead letter) the pipeline holds offsets for: until acknowledged or stopped. */
  delivery: { retries: Infinity, initialDelayMs: 250, maxDelayMs: 30_000, multiplier: 2, jitter: 0.2 },
  /** Waiting for the broker and the topic at start-up: until they answer or the service stops. */
  startup: { retries: Infinity, initialDelayMs: 500, maxDelayMs: 30_000, multiplier: 2, jitter: 0.2 },
  /** Replacing a dead consumer: about 5 minutes, then the process gives up (exit 1, supervisor restarts it). */
  consumerRecovery: { retries: 8, initialDelayMs: 1_000, maxDelayMs: 60_000, multiplier: 2, jitter: 0.2 },
} as const satisfies Record<string, RetryPolicy>

/** The retry policy sinks use when their config gives none: about 1 minute of retries. */
export const defaultRetryPolicy: RetryPolicy = retryPolicies.sink

/** The real-time sleep. */
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Completes a partial policy with `base` (the sink default) and validates it once. */
export function resolveRetryPolicy(
  policy: Partial<RetryPolicy> = {},
  base: RetryPolicy = defaultRetryPolicy,
): RetryPolicy {
  const resolved = { ...base, ...policy }
  for (const [key, value] of Object.entries(resolved)) {
    const infiniteRetries = key === 'retries' && value === Infinity
    if (!infiniteRetries && (!Number.isFinite(value) || value < 0)) {
      throw new Error(`retry.${key}: expected a finite number >= 0, got ${value}`)
    }
  }
  if (!Number.isInteger(resolved.retries) && resolved.retries !== Infinity) {
    throw new Error(`retry.retries: expected an integer or Infinity, got ${resolved.retries}`)
  }
  return resolved
}

/** The delay before retry number `attempt` (1-based); `random` returns [0, 1). */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const base = Math.min(policy.initialDelayMs * policy.multiplier ** (attempt - 1), policy.maxDelayMs)
  const spread = base * policy.jitter * (2 * random() - 1)
  return Math.max(0, Math.round(base + spread))
}

/** How `retryWithBackoff` runs. */
export interface RetryLoopOptions {
  policy: RetryPolicy
  sleep?: Sleep
  /** Aborting ends the loop: a waiting retry gives up at once, rejecting with the last error. */
  signal?: AbortSignal
  /** Whether `error` is worth another attempt; default always. */
  shouldRetry?: (error: unknown) => boolean
  /** Called before each retry's wait. */
  onRetry?: (retry: { attempt: number; delayMs: number; error: unknown }) => void
}

/**
 * Runs `attempt` until it resolves, the policy's retries are spent, `shouldRetry` says no or the
 * signal aborts; then rejects with the last error. `attempt` gets the attempt number (0 first).
 */
export async function retryWithBackoff<T>(
  attempt: (attemptNo: number) => Promise<T>,
  { policy, sleep = realSleep, signal, shouldRetry, onRetry }: RetryLoopOptions,
): Promise<T> {
  for (let attemptNo = 0; ; attemptNo++) {
    try {
      return await attempt(attemptNo)
    } catch (error) {
      if (signal?.aborted || attemptNo >= policy.retries || (shouldRetry && !shouldRetry(error))) throw error
      const delayMs = retryDelayMs(policy, attemptNo + 1)
      onRetry?.({ attempt: attemptNo + 1, delayMs, error })
      await sleepUnlessAborted(sleep, delayMs, signal)
      if (signal?.aborted) throw error
    }
  }
}

/** `sleep(ms)`, cut short when `signal` aborts. */
export function sleepUnlessAborted(sleep: Sleep, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal === undefined) return sleep(ms)
  if (signal.aborted) return Promise.resolve()
  return new Promise<void>((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done)
    sleep(ms).then(done, done)
  })
}
