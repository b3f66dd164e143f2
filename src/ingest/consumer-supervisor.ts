import type { Logger } from '../ops/logger.ts'
import {
  type RetryPolicy,
  realSleep,
  retryDelayMs,
  retryPolicies,
  type Sleep,
  sleepUnlessAborted,
} from '../sink/retry-policy.ts'
import type { ConsumerFactory, ConsumerHandlers, ConsumerPort } from './consumer-port.ts'

/** Settings of the consumer supervisor. */
interface ConsumerSupervisorOptions {
  logger: Logger
  /** Backoff between replacements and how many in a row (without a join between) before giving up. */
  policy?: RetryPolicy
  /** How long a dead consumer may take to stop before it is abandoned. Default 30,000 ms. */
  stopTimeoutMs?: number
  /** A consumer that stayed joined this long counts as recovered even if it fetched nothing. Default 300,000 ms. */
  healthyAfterMs?: number
  sleep?: Sleep
  now?: () => number
}

/** A consumer port that replaces its consumer when it dies. */
export interface SupervisedConsumer extends ConsumerPort {
  /** Consumers created to replace dead ones so far. */
  replacements(): number
}

/**
 * Wraps consumers from `create` so that one that died (`onCrash` with `recovering: false`) is
 * stopped and replaced by a new one, with the policy's backoff; the owner sees `onCrash(error,
 * true)` and, once the new consumer joined, `onAssigned`, as after any rejoin. After
 * `policy.retries` replacements in a row that never fetched a batch (nor stayed joined for
 * `healthyAfterMs`), it gives up: `onCrash(error, false)`.
 * Pause state carries over to the new consumer; events from a replaced consumer are ignored.
 */
export function superviseConsumer(
  create: ConsumerFactory,
  options: ConsumerSupervisorOptions,
): SupervisedConsumer {
  const { logger } = options
  const policy = options.policy ?? retryPolicies.consumerRecovery
  const stopTimeoutMs = options.stopTimeoutMs ?? 30_000
  const budget = recoveryBudget(policy.retries, options.healthyAfterMs ?? 300_000, options.now ?? Date.now)
  const stopping = new AbortController()
  let current: ConsumerPort | undefined
  let owner: ConsumerHandlers | undefined
  let topic = ''
  let paused = false
  let held: readonly number[] = []
  let replacing = false
  let replacements = 0

  const startNew = async (): Promise<void> => {
    const consumer = create()
    current = consumer
    if (paused) consumer.pause()
    if (held.length > 0) consumer.holdBack?.(held)
    await consumer.start(
      topic,
      forwardingHandlers({
        isCurrent: () => consumer === current && !stopping.signal.aborted,
        owner: () => owner!,
        budget,
        replace: (error) => void replace(error),
      }),
    )
  }

  /** Replaces the current consumer until a new one starts, or gives up when the budget is spent. */
  const replace = async (error: unknown): Promise<void> => {
    if (replacing) return
    replacing = true
    try {
      for (let lastError = error; !stopping.signal.aborted; ) {
        const attempt = budget.spend()
        if (attempt === undefined) {
          logger.error(
            { err: lastError, replacements },
            'the Kafka consumer could not be recovered; giving up',
          )
          owner!.onCrash(lastError, false)
          return
        }
        const delayMs = retryDelayMs(policy, attempt)
        owner!.onCrash(lastError, true)
        logger.warn(
          { err: lastError, attempt, retryInMs: delayMs },
          'the Kafka consumer died; replacing it with a new one',
        )
        await stopWithin(current!, stopTimeoutMs, logger)
        await sleepUnlessAborted(options.sleep ?? realSleep, delayMs, stopping.signal)
        if (stopping.signal.aborted) return
        replacements++
        lastError = await startNew().then(
          () => undefined,
          (startError: unknown) => startError ?? new Error('consumer start failed'),
        )
        if (lastError === undefined) return
      }
    } finally {
      replacing = false
    }
  }

  return {
    async start(name, handlers) {
      topic = name
      owner = handlers
      await startNew()
    },
    commit: (offsets) =>
      current === undefined ? Promise.reject(new Error('consumer not started')) : current.commit(offsets),
    pause() {
      paused = true
      current?.pause()
    },
    resume() {
      paused = false
      current?.resume()
    },
    holdBack(partitions) {
      held = partitions
      current?.holdBack?.(partitions)
    },
    seek: (partition, offset) => current?.seek(partition, offset),
    async stop() {
      stopping.abort()
      if (current !== undefined) await stopWithin(current, stopTimeoutMs, logger)
    },
    replacements: () => replacements,
  }
}

/**
 * The handlers given to one consumer: they forward to the owner only while it is the current
 * consumer (a replaced one may still deliver a late event), keep the recovery budget, and turn a
 * crash the consumer does not recover from into a replacement.
 */
function forwardingHandlers(ctx: {
  isCurrent: () => boolean
  owner: () => ConsumerHandlers
  budget: RecoveryBudget
  replace: (error: unknown) => void
}): ConsumerHandlers {
  return {
    onBatch(batch) {
      if (!ctx.isCurrent()) return undefined
      ctx.budget.consumed()
      return ctx.owner().onBatch(batch)
    },
    onAssigned(partitions) {
      if (!ctx.isCurrent()) return
      ctx.budget.joined()
      ctx.owner().onAssigned(partitions)
    },
    onRebalancing() {
      if (ctx.isCurrent()) ctx.owner().onRebalancing?.()
    },
    onReadThrough(epochMs) {
      if (ctx.isCurrent()) ctx.owner().onReadThrough?.(epochMs)
    },
    onCrash(error, recovering) {
      if (!ctx.isCurrent()) return
      ctx.budget.crashed()
      if (recovering) ctx.owner().onCrash(error, true)
      else ctx.replace(error)
    },
  }
}

type RecoveryBudget = ReturnType<typeof recoveryBudget>

/**
 * Counts replacements in a row that consumed nothing: a fetched batch clears it, and so does a
 * consumer that stayed joined `healthyAfterMs` before it crashed (an idle topic fetches no batch).
 */
function recoveryBudget(retries: number, healthyAfterMs: number, now: () => number) {
  let inARow = 0
  let joinedAtMs: number | undefined
  return {
    consumed() {
      inARow = 0
    },
    joined() {
      joinedAtMs = now()
    },
    crashed() {
      if (joinedAtMs !== undefined && now() - joinedAtMs >= healthyAfterMs) inARow = 0
      joinedAtMs = undefined
    },
    /** The next replacement's number (1-based), or undefined when `retries` are spent. */
    spend(): number | undefined {
      if (inARow >= retries) return undefined
      return ++inARow
    },
  }
}

/** Stops a consumer, giving up after `timeoutMs` (a consumer stuck in a request may never stop). */
async function stopWithin(consumer: ConsumerPort, timeoutMs: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      consumer.stop(),
      new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          logger.warn({ timeoutMs }, 'the Kafka consumer did not stop in time; abandoning it')
          resolve()
        }, timeoutMs)
      }),
    ])
  } catch (error) {
    logger.warn({ err: error }, 'stopping the Kafka consumer failed')
  } finally {
    clearTimeout(timer)
  }
}
