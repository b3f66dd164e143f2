import type { Consumer, ConsumerConfig, EachBatchPayload, Kafka } from 'kafkajs'
import { configDefaults } from '../config/defaults.ts'
import type { Logger } from '../ops/logger.ts'
import type { RetryPolicy } from '../sink/retry-policy.ts'
import type { ConsumerHandlers, ConsumerPort } from './consumer-port.ts'
import { type SupervisedConsumer, superviseConsumer } from './consumer-supervisor.ts'
import { FetchCycles } from './fetch-cycles.ts'
import { prepareKafkajs } from './kafka-client.ts'
import { createStallWatchdog, type StallWatchdog } from './stall-watchdog.ts'

/** Settings of a kafkajs consumer behind the consumer port. */
interface KafkajsConsumerOptions {
  /** The process's one kafkajs client. */
  kafka: Kafka
  groupId: string
  /** Where a group without committed offsets starts. */
  fromBeginning: boolean
  /** Default 30,000 ms. */
  sessionTimeout?: number
  /** Longest wait of a fetch (kafkajs `maxWaitTimeInMs`; also its sleep while every partition is paused). Default `kafka.fetchMaxWaitMs`. */
  maxWaitTimeMs?: number
  /** Further kafkajs consumer settings; they override the ones above. */
  consumerConfig?: Partial<ConsumerConfig>
  /**
   * A consumer that completed no fetch for this long is reported dead (`onCrash(error, false)`),
   * whatever kafkajs believes: kafkajs can stay "running" without fetching, or restart forever
   * while the broker is away. Default twice the longer of the session and rebalance timeouts.
   */
  stallTimeoutMs?: number
  logger: Logger
  now?: () => number
}

/** Raised (through `onCrash`) when a kafkajs consumer stopped fetching without crashing. */
class ConsumerStalledError extends Error {
  override readonly name = 'ConsumerStalledError'
}

/**
 * The consumer port over one kafkajs consumer (manual commits, batches resolved only as far as
 * they were consumed). It reports kafkajs's `CRASH` events (`restart: false` means dead), declares
 * a consumer dead that stopped fetching, and pauses again after kafkajs restarted its consumer
 * group internally (a restart forgets pauses).
 */
export function createKafkajsConsumer(options: KafkajsConsumerOptions): ConsumerPort {
  prepareKafkajs() // the client may be the caller's own, not from createKafkaClient
  const now = options.now ?? Date.now
  const { config, stallTimeoutMs } = consumerSettings(options)
  let consumer: Consumer | undefined
  let topic = ''
  let dead = false
  let watchdog: StallWatchdog | undefined
  const control = fetchControl(options.logger, now)

  const quietly = (what: string, action: () => void) => deferIfRestarting(options.logger, what, action)

  const declareDead = (handlers: ConsumerHandlers, error: unknown) => {
    if (dead) return
    dead = true
    watchdog?.stop()
    handlers.onCrash(error, false)
  }

  const eachBatch = (handlers: ConsumerHandlers) => async (payload: EachBatchPayload) => {
    const { batch, isRunning, isStale, resolveOffset, heartbeat } = payload
    if (dead || !isRunning() || isStale()) return
    const last = await handlers.onBatch({
      topic,
      partition: batch.partition,
      records: batch.messages,
      highWatermark: batch.highWatermark,
    })
    // Move the fetch position only over what was consumed, and not after a seek made the batch stale.
    if (last !== undefined && !isStale()) resolveOffset(last)
    await heartbeat()
  }

  const listen = (c: Consumer, handlers: ConsumerHandlers) => {
    c.on(c.events.FETCH, () => watchdog?.touch())
    c.on(c.events.FETCH_START, (event) => {
      const through = control.fetchStarted(event.payload.nodeId)
      if (through !== undefined) handlers.onReadThrough?.(through)
    })
    c.on(c.events.GROUP_JOIN, (event) => {
      watchdog?.touch()
      control.rejoined()
      handlers.onAssigned(event.payload.memberAssignment[topic] ?? [])
    })
    c.on(c.events.REBALANCING, () => {
      control.rebalancing()
      handlers.onRebalancing?.()
    })
    c.on(c.events.CRASH, (event) => {
      const { error, restart } = event.payload
      if (restart) handlers.onCrash(error, true)
      else declareDead(handlers, error)
    })
  }

  return {
    reportsReadThrough: true,
    async start(name, handlers) {
      topic = name
      const c = options.kafka.consumer(config)
      consumer = c
      control.attach(c, topic)
      watchdog = createStallWatchdog({
        timeoutMs: stallTimeoutMs,
        now,
        onStall: (idleMs) =>
          declareDead(
            handlers,
            new ConsumerStalledError(`no fetch completed for ${Math.round(idleMs / 1000)} s`),
          ),
      })
      listen(c, handlers)
      await c.connect()
      await c.subscribe({ topics: [topic], fromBeginning: options.fromBeginning })
      await c.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch: eachBatch(handlers) })
      watchdog.start()
    },
    commit: (offsets) =>
      consumer === undefined
        ? Promise.reject(new Error('consumer not started'))
        : consumer.commitOffsets(offsets.map((o) => ({ ...o }))),
    pause: () => control.pause(true),
    resume: () => control.pause(false),
    holdBack: (partitions) => control.holdBack(partitions),
    seek(partition, offset) {
      if (consumer) quietly('seek', () => consumer!.seek({ topic, partition, offset }))
    },
    async stop() {
      dead = true
      watchdog?.stop()
      await consumer?.disconnect()
    },
  }
}

/** The kafkajs consumer's settings, and how long it may go without a fetch before it counts as stalled. */
function consumerSettings(options: KafkajsConsumerOptions): {
  config: ConsumerConfig
  stallTimeoutMs: number
} {
  const sessionTimeout =
    options.consumerConfig?.sessionTimeout ?? options.sessionTimeout ?? configDefaults.kafka.sessionTimeoutMs
  const rebalanceTimeout = options.consumerConfig?.rebalanceTimeout ?? 60_000
  return {
    config: {
      groupId: options.groupId,
      sessionTimeout,
      maxWaitTimeInMs: options.maxWaitTimeMs ?? configDefaults.kafka.fetchMaxWaitMs,
      allowAutoTopicCreation: false,
      ...options.consumerConfig,
    },
    stallTimeoutMs: options.stallTimeoutMs ?? 2 * Math.max(sessionTimeout, rebalanceTimeout),
  }
}

/**
 * What a kafkajs consumer fetches, and what its fetches prove read. Reading is paused as a whole
 * (backpressure) or goes on for every partition but those held back; kafkajs's own pause state
 * does not compose the two (pausing a topic forgets paused partitions, pausing a partition
 * un-pauses the topic), so the whole state is set again at each change, and after every join (a
 * kafkajs restart forgets pauses). No fetch proves anything while paused (see FetchCycles).
 */
function fetchControl(logger: Logger, now: () => number) {
  let consumer: Consumer | undefined
  let topic = ''
  let paused = false
  let held: readonly number[] = []
  const fetches = new FetchCycles()
  const apply = () => {
    const c = consumer
    if (c === undefined) return
    deferIfRestarting(logger, paused ? 'pause' : 'resume', () => {
      if (paused) return c.pause([{ topic }])
      c.resume([{ topic }])
      if (held.length > 0) c.pause([{ topic, partitions: [...held] }])
    })
  }
  return {
    attach(c: Consumer, name: string) {
      consumer = c
      topic = name
    },
    pause(value: boolean) {
      paused = value
      fetches.reset()
      apply()
    },
    holdBack(partitions: readonly number[]) {
      held = partitions
      if (!paused) apply()
    },
    rebalancing() {
      fetches.reset()
    },
    rejoined() {
      fetches.reset()
      if (paused || held.length > 0) apply()
    },
    /** A fetch starts: the read-through time it proves, if any. */
    fetchStarted: (nodeId: number): number | undefined =>
      paused ? undefined : fetches.started(nodeId, now()),
  }
}

/** kafkajs throws from pause/resume/seek while its group is restarting; the next join re-applies what matters. */
function deferIfRestarting(logger: Logger, what: string, action: () => void): void {
  try {
    action()
  } catch (error) {
    logger.info({ err: error }, `kafka consumer ${what} deferred: the consumer is restarting`)
  }
}

/**
 * A kafkajs consumer that is replaced when it dies (`superviseConsumer` over
 * `createKafkajsConsumer`): what the span source and the repartitioner read through.
 */
export function createSupervisedKafkajsConsumer(
  options: KafkajsConsumerOptions & { recoveryPolicy?: RetryPolicy },
): SupervisedConsumer {
  const supervised = superviseConsumer(() => createKafkajsConsumer(options), {
    logger: options.logger,
    policy: options.recoveryPolicy,
  })
  return Object.assign(supervised, { reportsReadThrough: true })
}
