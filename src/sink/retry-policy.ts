/** Waits `ms` milliseconds; injectable so tests run retries without real time passing. */
export type Sleep = (ms: number) => Promise<void>

/** How a sink retries a failed delivery before it gives up and rejects. */
export interface RetryPolicy {
  /** Retries after the first attempt; 0 disables retrying. */
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

/** The retry policy sinks use when their config gives none: about 1 minute of retries. */
export const defaultRetryPolicy: RetryPolicy = {
  retries: 8,
  initialDelayMs: 250,
  maxDelayMs: 15_000,
  multiplier: 2,
  jitter: 0.2,
}

/** The real-time sleep. */
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Completes a partial policy with the defaults and validates it once. */
export function resolveRetryPolicy(policy: Partial<RetryPolicy> = {}): RetryPolicy {
  const resolved = { ...defaultRetryPolicy, ...policy }
  for (const [key, value] of Object.entries(resolved)) {
    if (!Number.isFinite(value) || value < 0) {
      throw new Error(`retry.${key}: expected a finite number >= 0, got ${value}`)
    }
  }
  if (!Number.isInteger(resolved.retries)) {
    throw new Error(`retry.retries: expected an integer, got ${resolved.retries}`)
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
