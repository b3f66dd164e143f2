import {
  type Consumer,
  type ConsumerConfig,
  type EachBatchPayload,
  Kafka,
  type KafkaMessage,
  logLevel,
  type Producer,
} from 'kafkajs'
import type { Span } from '../model/index.ts'
import { registerCompressionCodecs } from './codecs.ts'
import { type BadRecord, deadLetterMessage, errorCode } from './dead-letter.ts'
import { decodeOtlpTraces, type OtlpEncodingOption } from './decode/index.ts'
import { type IngestLogger, stderrLogger } from './ingest-logger.ts'
import { OffsetTracker, type RecordRef } from './offset-tracker.ts'
import { type ReadyTrace, TraceAssembler, type TraceAssemblerOptions } from './trace-assembler.ts'

/** A trace ready for scoring, with the Kafka records it came from. */
export type IngestedTrace = ReadyTrace<RecordRef>

/** Settings of the Kafka span source. */
export interface KafkaSourceOptions extends Omit<TraceAssemblerOptions, 'now'> {
  /** Broker addresses, used when no `kafka` client is given. Default `['127.0.0.1:9092']`. */
  brokers?: string[]
  /** A configured kafkajs client (SASL, TLS, codecs...); built from `brokers` when absent. */
  kafka?: Kafka
  clientId?: string
  /** Consumer group. Default `tracescore`. */
  groupId?: string
  /** Topic of OTLP span records. Default `otlp_spans`. */
  topic?: string
  /** Where a group without committed offsets starts. Default false (the latest records). */
  fromBeginning?: boolean
  /** Encoding of the record values. Default `auto` (protobuf or OTLP/JSON, per record). */
  encoding?: OtlpEncodingOption
  /** Topic for records that cannot be decoded; `false` drops them (counted). Default `otlp_spans_dlq`. */
  deadLetterTopic?: string | false
  /**
   * Downstream: transform, score and deliver the runs of one trace (`trace.agentSpanIds`).
   * Resolving means "scored and acknowledged by the sinks"; only then are the trace's records
   * committable. A rejection is retried with backoff (the offsets wait). Traces with no agent run
   * are finished without a call.
   */
  onTrace: (trace: IngestedTrace) => Promise<void>
  /** Most `onTrace` calls at once. Default 16. */
  maxInFlightTraces?: number
  /** Pause the partitions when released traces waiting for downstream exceed this. Default 1,000. */
  maxQueuedTraces?: number
  /** Pause the partitions when buffered spans exceed this. Default 80% of `maxBufferedSpans` (200,000). */
  pauseAtBufferedSpans?: number
  /** How often ready traces are looked for. Default 100 ms. */
  tickMs?: number
  /** How often finished offsets are committed. Default 1,000 ms. */
  commitIntervalMs?: number
  /** Backoff of a failed `onTrace`, doubled up to 30 s. Default 500 ms. */
  retryBackoffMs?: number
  /** How long `stop` waits for in-flight traces. Default 30,000 ms. */
  drainTimeoutMs?: number
  /** Passed to kafkajs. */
  sessionTimeout?: number
  /**
   * Longest wait of a fetch for new records (kafkajs `maxWaitTimeInMs`). Default 500 ms, as Java's
   * `fetch.max.wait.ms`: kafkajs also sleeps this long when every partition is paused.
   */
  maxWaitTimeMs?: number
  /** Further kafkajs consumer settings (fetch sizes, rack id, retry...); they override the defaults above. */
  consumerConfig?: Partial<ConsumerConfig>
  logger?: IngestLogger
  /** The clock. Default `Date.now`. */
  now?: () => number
}

/** Counters of the source, for `/metrics`. */
export interface KafkaSourceStats {
  records: number
  emptyRecords: number
  spans: number
  deadLetters: number
  tracesReleased: number
  tracesDelivered: number
  tracesWithoutRuns: number
  deliveryFailures: number
  lateSpans: number
  bufferedSpans: number
  bufferedBytes: number
  openTraces: number
  queuedTraces: number
  inFlightTraces: number
  pendingRecords: number
  commits: number
  paused: boolean
  rebalances: number
}

/** A running span source; `stop` drains in-flight traces, commits and disconnects. */
export interface KafkaSource {
  start(): Promise<void>
  /**
   * Stops consuming, waits for in-flight traces (up to `drainTimeoutMs`), commits what is finished
   * and disconnects. `{ commit: false }` skips the final commit (used to show replay).
   */
  stop(options?: { commit?: boolean }): Promise<void>
  /** Commits every finished offset now. */
  commit(): Promise<void>
  stats(): KafkaSourceStats
}

/**
 * Consumes OTLP span records from Kafka (a consumer group with manual commits), decodes them,
 * assembles traces and hands ready traces to `onTrace`; commits an offset only when every trace
 * fed by the records below it was acknowledged downstream (at-least-once). Undecodable records go
 * to the dead-letter topic. Partitions are paused while the buffer or the downstream queue is full.
 */
export function createKafkaSource(options: KafkaSourceOptions): KafkaSource {
  const topic = options.topic ?? 'otlp_spans'
  const groupId = options.groupId ?? 'tracescore'
  const encoding = options.encoding ?? 'auto'
  const dlqTopic = options.deadLetterTopic === undefined ? `${topic}_dlq` : options.deadLetterTopic
  const now = options.now ?? Date.now
  const log = options.logger ?? stderrLogger
  const maxInFlight = options.maxInFlightTraces ?? 16
  const maxQueued = options.maxQueuedTraces ?? 1_000
  const pauseAtSpans = options.pauseAtBufferedSpans ?? Math.floor((options.maxBufferedSpans ?? 200_000) * 0.8)
  const tickMs = options.tickMs ?? 100
  const commitIntervalMs = options.commitIntervalMs ?? 1_000
  const retryBackoffMs = options.retryBackoffMs ?? 500
  const drainTimeoutMs = options.drainTimeoutMs ?? 30_000

  // Records may come snappy, lz4 or zstd compressed (the Collector's producer.compression).
  registerCompressionCodecs()
  const kafka =
    options.kafka ??
    new Kafka({
      clientId: options.clientId ?? 'tracescore',
      brokers: options.brokers ?? ['127.0.0.1:9092'],
      logLevel: logLevel.WARN,
    })
  const assembler = new TraceAssembler<RecordRef>({ ...options, now })
  const tracker = new OffsetTracker()
  const queue: IngestedTrace[] = []
  const loggedCodes = new Set<string>()
  const counters = {
    records: 0,
    emptyRecords: 0,
    spans: 0,
    deadLetters: 0,
    tracesReleased: 0,
    tracesDelivered: 0,
    tracesWithoutRuns: 0,
    deliveryFailures: 0,
    commits: 0,
    rebalances: 0,
  }
  let consumer: Consumer | undefined
  let producer: Producer | undefined
  let timer: NodeJS.Timeout | undefined
  let inFlight = 0
  let paused = false
  let stopping = false
  let joinGeneration = 0
  let lastCommitMs = 0
  let committing: Promise<void> | undefined
  let batchInProgress: Promise<void> | undefined
  const drained = new Set<() => void>()

  const finish = (trace: IngestedTrace) => {
    for (const ref of trace.recordRefs) tracker.release(ref)
  }

  const deliver = (trace: IngestedTrace, attempt: number) => {
    // A downstream that throws synchronously is retried like a rejection. Called directly rather
    // than through `Promise.resolve(trace).then(onTrace)`: one promise less per trace.
    let delivered: Promise<void>
    try {
      delivered = Promise.resolve(options.onTrace(trace))
    } catch (error) {
      delivered = Promise.reject(error)
    }
    delivered.then(
      () => {
        counters.tracesDelivered++
        finish(trace)
        inFlight--
        pump()
      },
      (error: unknown) => {
        counters.deliveryFailures++
        log.warn(
          { err: error, traceId: trace.traceId, attempt },
          'downstream failed for a trace; its offsets wait and it is retried',
        )
        // A trace whose records were revoked is someone else's now: stop retrying it.
        if (stopping || !trace.recordRefs.some((ref) => tracker.isCurrent(ref))) {
          inFlight--
          pump()
          return
        }
        const delay = Math.min(retryBackoffMs * 2 ** attempt, 30_000)
        setTimeout(() => deliver(trace, attempt + 1), delay).unref()
      },
    )
  }

  const pump = () => {
    while (inFlight < maxInFlight && queue.length > 0) {
      const trace = queue.shift()!
      if (trace.agentSpanIds.length === 0) {
        counters.tracesWithoutRuns++
        finish(trace)
        continue
      }
      inFlight++
      deliver(trace, 0)
    }
    if (inFlight === 0 && queue.length === 0) for (const resolve of drained) resolve()
  }

  const collectReady = () => {
    const ready = assembler.takeReady()
    if (ready.length === 0) return
    counters.tracesReleased += ready.length
    queue.push(...ready)
    pump()
  }

  const applyBackpressure = () => {
    if (consumer === undefined || stopping) return
    const buffered = assembler.stats().bufferedSpans
    const waiting = queue.length + inFlight
    if (!paused && (buffered >= pauseAtSpans || waiting >= maxQueued)) {
      paused = true
      consumer.pause([{ topic }])
      log.info({ bufferedSpans: buffered, queuedTraces: waiting }, 'ingest paused: buffer or downstream full')
    } else if (paused && buffered < pauseAtSpans * 0.8 && waiting < maxQueued * 0.8) {
      paused = false
      consumer.resume([{ topic }])
      log.info({ bufferedSpans: buffered, queuedTraces: waiting }, 'ingest resumed')
    }
  }

  const commit = async (): Promise<void> => {
    if (committing !== undefined) return committing
    const offsets = tracker.committable()
    if (consumer === undefined || offsets.length === 0) return
    const c = consumer
    committing = (async () => {
      try {
        await c.commitOffsets(offsets)
        tracker.committed(offsets)
        counters.commits++
      } catch (error) {
        log.warn({ err: error, offsets }, 'offset commit failed; retried on the next interval')
      } finally {
        committing = undefined
        lastCommitMs = now()
      }
    })()
    return committing
  }

  const tick = () => {
    // Judged before this tick's releases: a queue that downstream did not drain in a whole tick.
    applyBackpressure()
    collectReady()
    if (now() - lastCommitMs >= commitIntervalMs) void commit()
  }

  const sendToDeadLetters = async (bad: BadRecord[]) => {
    for (const record of bad) {
      const code = errorCode(record.error)
      if (!loggedCodes.has(code)) {
        loggedCodes.add(code)
        log.warn(
          {
            err: record.error,
            code,
            topic: record.topic,
            partition: record.partition,
            offset: record.offset,
            sample: record.value?.subarray(0, 64).toString('base64'),
            deadLetterTopic: dlqTopic,
          },
          'undecodable record sent to the dead-letter topic (later ones with this code are only counted)',
        )
      }
    }
    if (dlqTopic !== false && producer !== undefined) {
      await producer.send({ topic: dlqTopic, acks: -1, messages: bad.map(deadLetterMessage) })
    }
    counters.deadLetters += bad.length
  }

  const readRecord = (
    message: KafkaMessage,
    partition: number,
    bad: { record: BadRecord; ref: RecordRef }[],
  ): void => {
    const ref = tracker.open(topic, partition, message.offset)
    counters.records++
    const value = message.value
    if (value === null || value.length === 0) {
      counters.emptyRecords++
      tracker.release(ref)
      return
    }
    let spans: Span[]
    try {
      spans = decodeOtlpTraces(value, encoding)
    } catch (error) {
      const record: BadRecord = { topic, partition, offset: message.offset, key: message.key, value, error }
      if (message.headers !== undefined) record.headers = message.headers
      if (message.timestamp !== undefined) record.timestamp = message.timestamp
      bad.push({ record, ref })
      return
    }
    counters.spans += spans.length
    const { traces } = assembler.add(spans, ref, value.length)
    tracker.hold(ref, traces)
    tracker.release(ref)
  }

  const eachBatch = async (payload: EachBatchPayload): Promise<void> => {
    const { batch, isRunning, isStale, heartbeat, resolveOffset } = payload
    const generation = joinGeneration
    const bad: { record: BadRecord; ref: RecordRef }[] = []
    let last: string | undefined
    for (const message of batch.messages) {
      if (!isRunning() || isStale() || generation !== joinGeneration || stopping) break
      readRecord(message, batch.partition, bad)
      last = message.offset
    }
    if (bad.length > 0) {
      // Released even when the dead-letter produce fails: the batch is then read again (nothing was
      // resolved) and the new reading holds these records, while a hold left over would block commits.
      try {
        await sendToDeadLetters(bad.map((b) => b.record))
      } finally {
        for (const b of bad) tracker.release(b.ref)
      }
    }
    // Move the fetch position only over what was read, and never into a newer group generation
    // (kafkajs would apply it to the new assignment's positions).
    if (last !== undefined && generation === joinGeneration) resolveOffset(last)
    collectReady()
    await heartbeat()
  }

  const start = async () => {
    stopping = false
    const c = kafka.consumer({
      groupId,
      sessionTimeout: options.sessionTimeout ?? 30_000,
      maxWaitTimeInMs: options.maxWaitTimeMs ?? 500,
      allowAutoTopicCreation: false,
      ...options.consumerConfig,
    })
    consumer = c
    c.on(c.events.GROUP_JOIN, (event) => {
      // After a join kafkajs would read every assigned partition again from its committed offset.
      // Partitions we keep continue where we were (their buffered traces and holds stay valid);
      // state of partitions we lost is dropped (their acks turn stale, the new owner reads them).
      joinGeneration++
      counters.rebalances++
      const assigned = new Set(event.payload.memberAssignment[topic] ?? [])
      const revoked = new Set<number>()
      for (const { partition } of tracker.assigned()) {
        const position = tracker.readPosition(topic, partition)
        if (assigned.has(partition) && position !== undefined) c.seek({ topic, partition, offset: position })
        else {
          tracker.revoke(topic, partition)
          revoked.add(partition)
        }
      }
      if (revoked.size > 0) {
        const lost = (ref: RecordRef) => revoked.has(ref.partition)
        assembler.discard(lost)
        for (let i = queue.length - 1; i >= 0; i--) if (queue[i]!.recordRefs.every(lost)) queue.splice(i, 1)
      }
      log.info(
        { memberAssignment: event.payload.memberAssignment, revoked: [...revoked] },
        'joined the consumer group',
      )
    })
    c.on(c.events.CRASH, (event) => {
      log.error({ err: event.payload.error, restart: event.payload.restart }, 'kafka consumer crashed')
    })
    if (dlqTopic !== false) {
      producer = kafka.producer({ allowAutoTopicCreation: true })
      await producer.connect()
    }
    await c.connect()
    await c.subscribe({ topics: [topic], fromBeginning: options.fromBeginning ?? false })
    await c.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async (payload) => {
        const running = eachBatch(payload)
        batchInProgress = running
        try {
          await running
        } finally {
          batchInProgress = undefined
        }
      },
    })
    lastCommitMs = now()
    timer = setInterval(tick, tickMs)
    timer.unref()
  }

  const waitForDrain = (): Promise<void> => {
    if (inFlight === 0 && queue.length === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timeout)
        drained.delete(done)
        resolve()
      }
      const timeout = setTimeout(done, drainTimeoutMs)
      drained.add(done)
    })
  }

  const stop = async ({ commit: commitOnStop = true } = {}) => {
    if (consumer === undefined) return
    const c = consumer
    // Stop reading but stay in the group (a stopped kafkajs consumer can no longer commit).
    c.pause([{ topic }])
    stopping = true
    await batchInProgress
    collectReady()
    await waitForDrain()
    if (timer !== undefined) clearInterval(timer)
    timer = undefined
    if (commitOnStop) {
      await committing
      await commit()
    }
    await c.disconnect()
    await producer?.disconnect()
    consumer = undefined
    producer = undefined
  }

  const stats = (): KafkaSourceStats => {
    const a = assembler.stats()
    return {
      ...counters,
      lateSpans: a.lateSpans,
      bufferedSpans: a.bufferedSpans,
      bufferedBytes: a.bufferedBytes,
      openTraces: a.openTraces,
      queuedTraces: queue.length,
      inFlightTraces: inFlight,
      pendingRecords: tracker.pendingRecords(),
      paused,
    }
  }

  return { start, stop, commit, stats }
}
