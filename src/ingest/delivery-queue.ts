import { type RetryPolicy, retryPolicies, retryWithBackoff, type Sleep } from '../sink/retry-policy.ts'

/** A destination of processed traces (a sink, the decisions topic); it acknowledges by resolving. */
export interface DeliveryTarget<R> {
  readonly name: string
  deliver(result: R): Promise<void> | void
}

/** How a trace left the queue. */
export type DeliveryOutcome =
  /** Every target acknowledged it. */
  | 'delivered'
  /** `process` threw: nothing to deliver (the trace is done; `onDone` gets the error). */
  | 'failed'
  /** The queue was stopped while its delivery was still retried: its offsets must wait. */
  | 'abandoned'
  /** The policy's retries ran out (a bounded policy, as a replay's): its offsets must wait. */
  | 'undeliverable'
  /** Its partitions went to another member before it was delivered: the new owner scores it. */
  | 'revoked'

/** Settings of the delivery queue. */
interface DeliveryQueueOptions<T, R> {
  /** Turns a trace into what the targets take (scoring); called once per trace, never retried. */
  process(trace: T): Promise<R>
  targets: readonly DeliveryTarget<R>[]
  /** Most traces processed or delivered at once. */
  maxInFlight: number
  /** Backoff of a failed delivery; default `retryPolicies.delivery` (until acknowledged or stopped). */
  policy?: RetryPolicy
  /** A delivery attempt not settled after this long counts as failed (and is retried). Default 120,000. */
  attemptTimeoutMs?: number
  /** Called once per trace when it leaves the queue (with the last error unless delivered). */
  onDone(trace: T, outcome: DeliveryOutcome, error?: unknown): void
  /** Called for each failed delivery attempt of a trace to one target. */
  onFailure?(trace: T, target: string, error: unknown, attempt: number): void
  sleep?: Sleep
}

/** Traces waiting, being processed and being delivered. */
export interface DeliveryQueue<T> {
  push(traces: readonly T[]): void
  /** Removes the waiting (not yet processed) traces that match and returns them. */
  drop(matches: (trace: T) => boolean): T[]
  /** Traces not started yet. */
  waiting(): number
  /** Traces being processed or delivered. */
  inFlight(): number
  /** Resolves when nothing waits and nothing is in flight. */
  drained(): Promise<void>
  /** Ends every retry: in-flight deliveries give up (`abandoned`), waiting traces stay unprocessed. */
  stop(): void
  /**
   * A rebalance began: no delivery attempt starts (scoring goes on) until `release`, or for at
   * most `maxMs`. A result delivered now could be for a partition about to get a new owner.
   */
  hold(maxMs: number): void
  /**
   * The group was (re)joined: deliveries go on, except for the traces in flight that `revoked`
   * matches (their partitions have a new owner, which reads and scores them again): they deliver
   * nothing and end `revoked`. An attempt already under way is not called back.
   */
  release(revoked?: (trace: T) => boolean): void
}

/** Thrown inside a delivery attempt of a revoked trace: ends its retries. */
const REVOKED = new Error('partitions revoked')

/**
 * The delivery queue: each trace is processed once (scored), and its result is kept until every
 * target acknowledged it. A failed delivery retries only the targets that failed, with the
 * policy's backoff; it never processes the trace again, so judge calls, budgets, decisions and
 * metrics happen once per trace.
 */
export function createDeliveryQueue<T, R>(options: DeliveryQueueOptions<T, R>): DeliveryQueue<T> {
  const policy = options.policy ?? retryPolicies.delivery
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 120_000
  const waiting: T[] = []
  let head = 0
  let inFlight = 0
  const stopping = new AbortController()
  const drainWaiters = new Set<() => void>()
  const rebalance = rebalanceHold<T>()

  const delivery: DeliveryContext<T, R> = {
    options,
    policy,
    attemptTimeoutMs,
    signal: stopping.signal,
    rebalance,
  }
  const run = async (trace: T): Promise<void> => {
    let result: R
    try {
      result = await options.process(trace)
    } catch (error) {
      options.onDone(trace, 'failed', error)
      return
    }
    await deliverResult(trace, result, delivery)
  }

  /** A trace left flight: start the next. */
  const landed = () => {
    inFlight--
    pump()
  }

  const pump = () => {
    while (inFlight < options.maxInFlight && head < waiting.length && !stopping.signal.aborted) {
      const trace = waiting[head]!
      waiting[head++] = undefined as T
      inFlight++
      rebalance.started(trace)
      run(trace)
        .finally(() => rebalance.ended(trace))
        .then(landed, landed)
    }
    if (head > 1024 && head * 2 > waiting.length) {
      waiting.splice(0, head)
      head = 0
    }
    if (inFlight === 0 && (head >= waiting.length || stopping.signal.aborted))
      for (const resolve of drainWaiters) resolve()
  }

  return {
    push(traces) {
      for (const trace of traces) waiting.push(trace)
      pump()
    },
    drop(matches) {
      const kept: T[] = []
      const dropped: T[] = []
      for (let i = head; i < waiting.length; i++) (matches(waiting[i]!) ? dropped : kept).push(waiting[i]!)
      waiting.length = 0
      waiting.push(...kept)
      head = 0
      pump()
      return dropped
    },
    waiting: () => waiting.length - head,
    inFlight: () => inFlight,
    drained() {
      if (inFlight === 0 && (head >= waiting.length || stopping.signal.aborted)) return Promise.resolve()
      return new Promise((resolve) => {
        const done = () => {
          drainWaiters.delete(done)
          resolve()
        }
        drainWaiters.add(done)
      })
    },
    stop() {
      stopping.abort()
      rebalance.release()
      pump()
    },
    hold: rebalance.hold,
    release: rebalance.release,
  }
}

/** What delivering one result needs from its queue. */
interface DeliveryContext<T, R> {
  options: DeliveryQueueOptions<T, R>
  policy: RetryPolicy
  attemptTimeoutMs: number
  /** Aborted when the queue stops. */
  signal: AbortSignal
  rebalance: ReturnType<typeof rebalanceHold<T>>
}

/**
 * Delivers a trace's result to every target, retrying those that failed, until all acknowledged
 * it, its partitions were revoked, the queue stopped or the policy ran out; then `onDone`.
 */
async function deliverResult<T, R>(trace: T, result: R, ctx: DeliveryContext<T, R>): Promise<void> {
  const { options, rebalance, signal } = ctx
  if (rebalance.active() && (await rebalance.revokedAfterHold(trace))) return options.onDone(trace, 'revoked')
  if (options.targets.length === 0) return options.onDone(trace, 'delivered')
  const pending = new Set(options.targets)
  const onFailure = (target: string, error: unknown, attempt: number) =>
    options.onFailure?.(trace, target, error, attempt)
  try {
    await retryWithBackoff(
      async (attempt) => {
        if (attempt > 0 && (await rebalance.revokedAfterHold(trace))) throw REVOKED
        return deliverPending(result, pending, attempt, ctx.attemptTimeoutMs, onFailure)
      },
      { policy: ctx.policy, signal, sleep: options.sleep, shouldRetry: (error) => error !== REVOKED },
    )
    options.onDone(trace, 'delivered')
  } catch (error) {
    if (error === REVOKED) options.onDone(trace, 'revoked')
    else options.onDone(trace, signal.aborted ? 'abandoned' : 'undeliverable', error)
  }
}

/**
 * The queue's part in a rebalance: the traces in flight, a hold that deliveries wait out, and the
 * traces revoked when it ended.
 */
function rebalanceHold<T>() {
  const flying = new Set<T>()
  const revoked = new Set<T>()
  let hold: { released: Promise<void>; release: () => void; timer: NodeJS.Timeout } | undefined
  const release = (isRevoked?: (trace: T) => boolean) => {
    if (isRevoked) for (const trace of flying) if (isRevoked(trace)) revoked.add(trace)
    if (hold === undefined) return
    clearTimeout(hold.timer)
    const ended = hold
    hold = undefined
    ended.release()
  }
  return {
    started: (trace: T) => void flying.add(trace),
    ended(trace: T) {
      flying.delete(trace)
      revoked.delete(trace)
    },
    /** Whether a delivery may have to wait or be dropped (a hold, or revoked traces in flight). */
    active: () => hold !== undefined || revoked.size > 0,
    /** Waits out a hold; true when the trace was revoked meanwhile (or before). */
    async revokedAfterHold(trace: T): Promise<boolean> {
      while (hold !== undefined) await hold.released
      return revoked.has(trace)
    },
    hold(maxMs: number) {
      if (hold !== undefined) return
      let resolve = () => {}
      const released = new Promise<void>((r) => {
        resolve = r
      })
      const timer = setTimeout(() => release(), maxMs)
      timer.unref()
      hold = { released, release: resolve, timer }
    },
    release,
  }
}

/**
 * One attempt: delivers `result` to the pending targets at once; acknowledged ones leave
 * `pending`, failed ones are reported and make the attempt reject.
 */
async function deliverPending<R>(
  result: R,
  pending: Set<DeliveryTarget<R>>,
  attempt: number,
  timeoutMs: number,
  onFailure: (target: string, error: unknown, attempt: number) => void,
): Promise<void> {
  if (pending.size === 1) {
    // The common case (one sink): no arrays, no allSettled.
    const [target] = pending
    try {
      await withTimeout(target!, result, timeoutMs)
    } catch (error) {
      onFailure(target!.name, error, attempt)
      throw error
    }
    pending.clear()
    return
  }
  const tried = [...pending]
  const outcomes = await Promise.allSettled(tried.map((t) => withTimeout(t, result, timeoutMs)))
  const errors: unknown[] = []
  outcomes.forEach((outcome, i) => {
    const target = tried[i]!
    if (outcome.status === 'fulfilled') pending.delete(target)
    else {
      errors.push(outcome.reason)
      onFailure(target.name, outcome.reason, attempt)
    }
  })
  if (errors.length > 0) throw errors.length === 1 ? errors[0] : new AggregateError(errors)
}

/** One delivery to one target, failing after `timeoutMs` if it has not settled. */
function withTimeout<R>(target: DeliveryTarget<R>, result: R, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${target.name}: delivery not acknowledged after ${timeoutMs} ms`)),
      timeoutMs,
    )
    timer.unref()
  })
  const attempt = (async () => target.deliver(result))()
  return Promise.race([attempt, timeout]).finally(() => clearTimeout(timer))
}
