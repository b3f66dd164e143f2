import type {
  Consumer,
  ConsumerConfig,
  ConsumerRunConfig,
  ConsumerSubscribeTopics,
  EachBatchPayload,
  Kafka,
} from 'kafkajs'
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
 * group internally (a restart forgets pauses). `stop` ends it for good: see {@link stopGuard}.
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
  const guard = stopGuard(options.logger)

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
    c.on(c.events.CONNECT, () => guard.connected())
    c.on(c.events.GROUP_JOIN, (event) => {
      guard.joinEnded()
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
      guard.crashed(restart, () => c.disconnect())
      if (restart) handlers.onCrash(error, true)
      else declareDead(handlers, error)
    })
  }

  return {
    reportsReadThrough: true,
    async start(name, handlers) {
      topic = name
      const c = options.kafka.consumer(guard.consumerConfig(config))
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
      const run = { autoCommit: false, eachBatchAutoResolve: false, eachBatch: eachBatch(handlers) }
      if (await connectAndRun(c, guard, { topics: [topic], fromBeginning: options.fromBeginning }, run))
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
      await guard.stop()
      await consumer?.disconnect()
    },
  }
}

/**
 * Connects, subscribes and runs a kafkajs consumer; false when `stop` came meanwhile (it is then
 * disconnected, or stopped by `stop` once its join ended). `run` resolves once the first join
 * ended, joined or crashed.
 */
async function connectAndRun(
  c: Consumer,
  guard: StopGuard,
  subscription: ConsumerSubscribeTopics,
  run: ConsumerRunConfig,
): Promise<boolean> {
  await c.connect()
  if (guard.stopping()) return disconnected(c)
  await c.subscribe(subscription)
  if (guard.stopping()) return disconnected(c)
  guard.running()
  await c.run(run)
  guard.joinEnded()
  return !guard.stopping()
}

async function disconnected(c: Consumer): Promise<false> {
  await c.disconnect()
  return false
}

type StopGuard = ReturnType<typeof stopGuard>

/** How long `stop` waits for a group join under way to end before it disconnects all the same. */
const JOIN_END_WAIT_MS = 25_000

/**
 * What makes `stop` final on a kafkajs 2.2.4 consumer. Two of its paths outlive `disconnect`:
 * - a crash that kafkajs restarts: its restart timer is armed after `disconnect` may already
 *   have cleared it, and the new start reconnects; so once stopping, `retry.restartOnFailure`
 *   answers no, and a crash whose restart it allowed just before the stop is followed by one
 *   more `disconnect` once the timer is armed (`crashed`);
 * - a stop during a group join (the first, or a restart's: after a broker restart the
 *   coordinator loads for seconds): the runner is not "running" yet, so its stop returns at once
 *   and is then forgotten; the join goes on over connections it reopens and ends either with a
 *   consumer fetching for good that nothing can reach, or in a crash that kafkajs restarts. So
 *   `stop` first waits for the join under way to end (a `GROUP_JOIN` or a `CRASH` event), then
 *   disconnects.
 * Either way the process never exited after SIGTERM (test/fault/broker-restart-logs.test.ts).
 */
function stopGuard(logger: Logger) {
  let stopping = false
  let started = false
  let join: { ended: Promise<void>; end: () => void } | undefined
  return {
    /** The kafkajs settings, with restarts refused once stopping. */
    consumerConfig(config: ConsumerConfig): ConsumerConfig {
      const own = config.retry?.restartOnFailure
      const restartOnFailure = async (error: Error) => !stopping && (own ? await own(error) : true)
      // kafkajs's own default for a consumer without retry settings is `{ retries: 5 }`.
      return { ...config, retry: { ...(config.retry ?? { retries: 5 }), restartOnFailure } }
    },
    stopping: () => stopping,
    /** `run` is called next: a join begins. */
    running() {
      started = true
      this.connected()
    },
    /** A `CONNECT` event: after `run`, a (re)start's join begins. */
    connected() {
      if (!started || join !== undefined) return
      let end = () => {}
      const ended = new Promise<void>((resolve) => (end = resolve))
      join = { ended, end }
    },
    joinEnded() {
      join?.end()
      join = undefined
    },
    /**
     * A `CRASH` event: the join under way ended. A restart kafkajs decided just before `stop`
     * (restartOnFailure asked before it) arms its timer after this event, and after a disconnect
     * that stop may already have made: `disconnect` once more when the timer is armed clears it.
     */
    crashed(restart: boolean, disconnect: () => Promise<void>) {
      this.joinEnded()
      if (restart && stopping) setTimeout(() => void disconnect().catch(() => {}), 0)
    },
    /** Refuses restarts from now on and waits (bounded) for a join under way to end. */
    async stop(): Promise<void> {
      stopping = true
      if (join === undefined) return
      let timer: NodeJS.Timeout | undefined
      const waited = await Promise.race([
        join.ended.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), JOIN_END_WAIT_MS))),
      ])
      clearTimeout(timer)
      if (!waited)
        logger.warn(
          { waitedMs: JOIN_END_WAIT_MS },
          'the Kafka consumer was still joining its group; stopping it anyway',
        )
    },
  }
}

/**
 * Bytes a fetch asks per partition (kafkajs's default: 1 MiB; a larger record batch still comes
 * whole). A record's value is a slice of its fetch response, which stays in memory while any span
 * of it is buffered: at 1 MiB over 8 partitions each response was 8 MiB, and the responses pinned
 * by buffered traces were most of the process's ArrayBuffer memory (Collector bench: 241-261 MiB
 * against 145-149 at 256 KiB on GenAI-heavy traffic at 10 %, bench/RESULTS.md section 14).
 */
export const FETCH_MAX_BYTES_PER_PARTITION = 256 * 1024

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
      maxBytesPerPartition: FETCH_MAX_BYTES_PER_PARTITION,
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
