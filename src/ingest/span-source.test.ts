/**
 * The at-least-once core on the in-memory consumer port: scoring once, delivery retried until
 * acknowledged, offsets committed only behind finished records, poison records, rebalances and
 * crashes. No broker: these run as plain unit tests (the same paths run on Kafka in
 * test/integration/ingest-*.test.ts).
 */

import type { Message } from 'kafkajs'
import { afterEach, describe, expect, it } from 'vitest'
import { until } from '../../test/helpers/poll.ts'
import { silentLogger } from '../ops/logger.ts'
import { captureLogs } from '../ops/testing/capture-logs.ts'
import type { ConsumerHandlers } from './consumer-port.ts'
import { superviseConsumer } from './consumer-supervisor.ts'
import { createDeadLetterProducer } from './dead-letter-producer.ts'
import type { DeliveryTarget } from './delivery-queue.ts'
import {
  createSpanSource,
  type IngestedTrace,
  type SpanSource,
  type SpanSourceOptions,
} from './span-source.ts'
import {
  byTrace,
  encodeOtlpProto,
  generateAgentTraffic,
  isGeneratedAgentSpan,
} from './testing/agent-traffic.ts'
import { createMemoryTopic, type MemoryConsumer, type MemoryTopic } from './testing/memory-consumer.ts'

const silent = silentLogger()
const fast = { retries: Infinity, initialDelayMs: 2, maxDelayMs: 10, multiplier: 2, jitter: 0 }

/** A gate a test opens when it wants a blocked delivery to go on. */
const gate = () => {
  let open: () => void = () => {}
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { opened, open }
}

interface Placed {
  traceId: string
  partition: number
  offset: number
  agentSpanIds: string[]
}

interface Harness {
  topic: MemoryTopic
  source: SpanSource
  consumers: MemoryConsumer[]
  placed: Placed[]
  /** `process` calls per trace id: the judge calls. */
  scored: Map<string, number>
  deadLetters: Message[]
  /** Every agent run's trace id delivered to the `sink` target, once per acknowledged delivery. */
  delivered: Map<string, number>
  committedToEnd(): boolean
}

const sources: SpanSource[] = []
afterEach(async () => {
  await Promise.all(sources.splice(0).map((s) => s.stop({ commit: false })))
})

/**
 * `runs` agent runs and 2 plain traces, one record per trace, record i in partition i % partitions,
 * read by a supervised memory consumer into a span source whose `sink` target counts deliveries.
 */
function harness(
  options: {
    runs?: number
    partitions?: number
    sink?: (trace: string) => Promise<void> | void
    extraTargets?: DeliveryTarget<IngestedTrace>[]
    bad?: { partition: number; count: number }
    sendDeadLetters?: (messages: Message[]) => Promise<void>
    createConsumer?: (topic: MemoryTopic) => MemoryConsumer
    source?: Partial<SpanSourceOptions<IngestedTrace>>
    recoveryRetries?: number
    /** The time of the record at `offset` of `partition` (records have none without it). */
    timeOf?: (partition: number, offset: number) => number
  } = {},
): Harness {
  const partitions = options.partitions ?? 2
  const topic = createMemoryTopic('spans', partitions)
  const traffic = generateAgentTraffic({ runs: options.runs ?? 20, plainTraces: 2, seed: 7 })
  const placed: Placed[] = []
  const agentIds = new Map(traffic.runs.map((r) => [r.traceId, [r.agentSpanId]]))
  ;[...byTrace(traffic.spans)].forEach(([traceId, spans], i) => {
    const partition = i % partitions
    if (options.bad?.partition === partition && placed.length === 4)
      topic.append(
        partition,
        Array.from({ length: options.bad.count }, () => ({ value: 'not protobuf \u00ff' })),
      )
    const offset = topic.records(partition).length
    const timestamp = options.timeOf?.(partition, offset)
    topic.append(partition, [{ key: traceId, value: encodeOtlpProto(spans), timestamp }])
    placed.push({ traceId, partition, offset, agentSpanIds: agentIds.get(traceId) ?? [] })
  })
  const consumers: MemoryConsumer[] = []
  const scored = new Map<string, number>()
  const delivered = new Map<string, number>()
  const deadLetters: Message[] = []
  const sink: DeliveryTarget<IngestedTrace> = {
    name: 'sink',
    async deliver(trace) {
      await options.sink?.(trace.traceId)
      delivered.set(trace.traceId, (delivered.get(trace.traceId) ?? 0) + 1)
    },
  }
  const consumer = superviseConsumer(
    () => {
      const c = options.createConsumer?.(topic) ?? topic.consumer({ batchSize: 3 })
      consumers.push(c)
      return c
    },
    { logger: silent, policy: { ...fast, retries: options.recoveryRetries ?? 3 } },
  )
  const source = createSpanSource<IngestedTrace>({
    consumer,
    topic: 'spans',
    encoding: 'otlp_proto',
    deadLetters: createDeadLetterProducer({
      topic: 'spans_dlq',
      send: async (_topic, messages) => {
        await options.sendDeadLetters?.(messages)
        deadLetters.push(...messages)
      },
      logger: silent,
      policy: fast,
    }),
    isAgentRunSpan: isGeneratedAgentSpan,
    settleMs: 20,
    tickMs: 5,
    commitIntervalMs: 5,
    deliveryPolicy: fast,
    logger: silent,
    async process(trace) {
      scored.set(trace.traceId, (scored.get(trace.traceId) ?? 0) + 1)
      return trace
    },
    targets: [sink, ...(options.extraTargets ?? [])],
    ...options.source,
  })
  sources.push(source)
  const committedToEnd = () => {
    for (let p = 0; p < partitions; p++) if (topic.committed(p) !== topic.records(p).length) return false
    return true
  }
  return { topic, source, consumers, placed, scored, deadLetters, delivered, committedToEnd }
}

const runs = (h: Harness) => h.placed.filter((p) => p.agentSpanIds.length > 0)

/** Polls `condition` for up to a minute; a timeout names what it waited for. */
const waitFor = (what: string, condition: () => boolean): Promise<void> =>
  until(condition, 60_000, () => what)

/** Waits until every partition is committed to its end and, unless told otherwise, every run was delivered. */
function untilCommittedToEnd(h: Harness, { allDelivered = true } = {}): Promise<void> {
  return waitFor(
    'committed to the end',
    () => h.committedToEnd() && (!allDelivered || h.delivered.size === runs(h).length),
  )
}

/** Every agent run was scored exactly once and delivered at least once; plain traces never scored. */
function expectScoredOnceAndDelivered(h: Harness) {
  for (const run of runs(h)) {
    expect(h.scored.get(run.traceId), run.traceId).toBe(1)
    expect(h.delivered.get(run.traceId) ?? 0, run.traceId).toBeGreaterThanOrEqual(1)
  }
  expect(h.scored.size).toBe(runs(h).length)
}

describe('span source on the in-memory consumer port', () => {
  it('lets traces waiting for a lagging partition settle by the clock while a full buffer pauses reading', async () => {
    // Partition 1's records are far older than partition 0's, and it lags (read 3 records a
    // fetch): partition 0's traces wait for it. The buffer fills and pauses reading, partition 1
    // included, so the watermark cannot move: traces then settle by the clock, not at maxTraceAgeMs.
    let pausedSeen = false
    const h = harness({
      runs: 60,
      timeOf: (partition, offset) => (partition === 0 ? 10_000_000 : 1_000_000) + offset,
      source: { pauseAtBufferedSpans: 30, maxTraceAgeMs: 3_600_000 },
      sink: () => {
        pausedSeen ||= h.source.stats().paused
      },
    })
    await h.source.start()
    await untilCommittedToEnd(h)
    expectScoredOnceAndDelivered(h)
    expect(pausedSeen).toBe(true)
    expect(h.source.stats()).toMatchObject({ lateSpans: 0, tracesIncomplete: 0 })
  })

  it('holds back a partition read far ahead of a lagging one until it catches up (watermark alignment)', async () => {
    // Partition 0's records are an hour later than partition 1's, which is read slowly (one
    // record a fetch, 5 ms each): partition 0's traces would only wait for it in the buffer.
    const p0Batches = { whileP1Behind: 0 }
    let p1Next = 0
    const slowP1 = (topic: MemoryTopic): MemoryConsumer => {
      const inner = topic.consumer({ batchSize: 3 })
      return Object.assign(Object.create(inner) as MemoryConsumer, {
        start: (name: string, handlers: ConsumerHandlers) =>
          inner.start(name, {
            ...handlers,
            async onBatch(batch) {
              if (batch.partition === 0 && p1Next < topic.records(1).length) p0Batches.whileP1Behind++
              if (batch.partition !== 1) return handlers.onBatch(batch)
              await new Promise((r) => setTimeout(r, 5))
              const last = await handlers.onBatch({ ...batch, records: batch.records.slice(0, 1) })
              if (last !== undefined) p1Next = Number(last) + 1
              return last
            },
          }),
      })
    }
    const heldSeen = new Set<string>()
    const h = harness({
      runs: 60,
      timeOf: (partition, offset) => (partition === 0 ? 3_600_000 : 0) + 1_000_000 + offset,
      createConsumer: slowP1,
      sink: () => void heldSeen.add(h.consumers.at(-1)!.heldBack.join()),
    })
    await h.source.start()
    await untilCommittedToEnd(h)
    expectScoredOnceAndDelivered(h)
    expect(heldSeen).toContain('0')
    // Partition 0 was read once (before the first tick found it ahead), then waited.
    expect(p0Batches.whileP1Behind).toBeLessThanOrEqual(2)
    expect(h.consumers.at(-1)!.heldBack).toEqual([]) // caught up: nothing held
    expect(h.source.stats()).toMatchObject({ lateSpans: 0, tracesIncomplete: 0, heldPartitions: 0 })
  })

  it('scores every run once, delivers it and commits every partition to its end', async () => {
    const h = harness()
    await h.source.start()
    await untilCommittedToEnd(h)
    expectScoredOnceAndDelivered(h)
    for (const run of runs(h)) expect(h.delivered.get(run.traceId)).toBe(1)
    expect(h.source.stats()).toMatchObject({ tracesWithoutRuns: 2, deadLetters: 0, deliveryFailures: 0 })
    expect(h.source.ready()).toBe(true)
  })

  it('commits every partition to its end once caught up, without waiting for the commit interval', async () => {
    // Deliveries wait until every record is read, so the source catches up once, at the end.
    let allRead = () => false
    const h = harness({
      source: { commitIntervalMs: 3_600_000 },
      sink: () => waitFor('every record read', () => allRead()),
    })
    const records = h.topic.records(0).length + h.topic.records(1).length
    allRead = () => h.source.stats().records === records
    await h.source.start()
    await untilCommittedToEnd(h)
    expect(h.source.stats().commits).toBe(1)
  })

  it('retries a failed delivery without scoring again, only to the target that failed, and commits after it', async () => {
    const failing = gate()
    let failingOpen = false
    void failing.opened.then(() => {
      failingOpen = true
    })
    const attempts = new Map<string, number>()
    const other = new Map<string, number>()
    let first = ''
    const h = harness({
      sink(traceId) {
        attempts.set(traceId, (attempts.get(traceId) ?? 0) + 1)
        if (traceId === first && !failingOpen) throw new Error('backend down')
      },
      extraTargets: [
        {
          name: 'other',
          deliver: (trace) => {
            other.set(trace.traceId, (other.get(trace.traceId) ?? 0) + 1)
          },
        },
      ],
    })
    const failed = h.placed.find((p) => p.partition === 0 && p.agentSpanIds.length > 0)!
    first = failed.traceId
    await h.source.start()
    await waitFor('every other run delivered', () => h.delivered.size === runs(h).length - 1)
    await waitFor('several failed attempts', () => (attempts.get(first) ?? 0) >= 4)
    await waitFor(
      'partition 1 committed to its end',
      () => h.topic.committed(1) === h.topic.records(1).length,
    )
    // Nothing of partition 0 was committed past the failing trace's record.
    const commitsWhileFailing = h.consumers[0]!.commitCalls.flat().filter((c) => c.partition === 0)
    for (const c of commitsWhileFailing) expect(Number(c.offset)).toBeLessThanOrEqual(failed.offset)
    failing.open()
    await untilCommittedToEnd(h, { allDelivered: false })
    expect(h.delivered.get(first)).toBe(1)
    expectScoredOnceAndDelivered(h)
    // The target that acknowledged got the trace once; the failing one was retried alone.
    expect(other.get(first)).toBe(1)
    expect(h.source.stats().deliveryFailures).toBeGreaterThanOrEqual(4)
  })

  it('sends poison records to the dead letters and commits past them only once they are there', async () => {
    const dlqDown = gate()
    const h = harness({ bad: { partition: 0, count: 3 }, sendDeadLetters: () => dlqDown.opened })
    await h.source.start()
    await waitFor('every run delivered', () => h.delivered.size === runs(h).length)
    await waitFor('a commit', () => h.topic.committed(1) === h.topic.records(1).length)
    const firstBad = h.topic.records(0).findIndex((r) => r.value?.toString().startsWith('not protobuf'))
    expect(firstBad).toBeGreaterThan(0)
    expect(h.topic.committed(0)).toBeLessThanOrEqual(firstBad)
    dlqDown.open()
    await untilCommittedToEnd(h, { allDelivered: false })
    expect(h.deadLetters.map((m) => m.headers?.['tracescore-original-offset'])).toEqual(
      [0, 1, 2].map((i) => String(firstBad + i)),
    )
    expect(h.deadLetters[0]!.headers?.['tracescore-error-code']).toBeTruthy()
    expect(h.source.stats().deadLetters).toBe(3)
    expectScoredOnceAndDelivered(h)
  })

  it('keeps scoring once across a rebalance in the middle of a delivery', async () => {
    const held = gate()
    let heldTrace = ''
    let heldStarted = false
    const h = harness({
      runs: 30,
      sink: async (traceId) => {
        if (traceId !== heldTrace) return
        heldStarted = true
        await held.opened
      },
      // One trace in flight at a time: the runs released behind the held one wait in the queue.
      source: { maxInFlightTraces: 1 },
    })
    heldTrace = runs(h).find((r) => r.partition === 0 && r.offset > 2)!.traceId
    await h.source.start()
    await waitFor('the held delivery started', () => heldStarted)
    // Partition 0 goes to another member: its waiting traces are dropped, the held one finishes.
    h.consumers[0]!.assign([1])
    held.open()
    await waitFor(
      'partition 1 committed to its end',
      () => h.topic.committed(1) === h.topic.records(1).length,
    )
    await waitFor('the held trace delivered', () => h.delivered.get(heldTrace) === 1)
    expect(h.topic.committed(0)).toBeLessThanOrEqual(runs(h).find((r) => r.traceId === heldTrace)!.offset)
    // ...and comes back: read again from the committed offset; nothing is scored twice.
    h.consumers[0]!.assign([0, 1])
    await untilCommittedToEnd(h)
    expectScoredOnceAndDelivered(h)
    expect(h.source.stats().rebalances).toBe(3)
  })

  it('delivers nothing for a trace whose partition was revoked while it was scored: its new owner scores it', async () => {
    const judging = gate()
    let judgedTrace = ''
    let judgingStarted = false
    const h = harness({
      runs: 30,
      source: {
        maxInFlightTraces: 1,
        async process(trace) {
          h.scored.set(trace.traceId, (h.scored.get(trace.traceId) ?? 0) + 1)
          if (trace.traceId === judgedTrace && (h.scored.get(trace.traceId) ?? 0) === 1) {
            judgingStarted = true
            await judging.opened // a judge request under way
          }
          return trace
        },
      },
    })
    judgedTrace = runs(h).find((r) => r.partition === 0 && r.offset > 2)!.traceId
    await h.source.start()
    await waitFor('the judge request under way', () => judgingStarted)
    // A rebalance starts, and partition 0 goes to another member while the judge answers.
    h.consumers[0]!.rebalancing()
    judging.open()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(h.delivered.get(judgedTrace)).toBeUndefined() // held: the rebalance is not over
    h.consumers[0]!.assign([1])
    await waitFor(
      'partition 1 committed to its end',
      () => h.topic.committed(1) === h.topic.records(1).length,
    )
    await waitFor('the revoked trace counted', () => h.source.stats().tracesRevoked === 1)
    // Its answer went nowhere: one owner delivers a run, whatever the judge said twice.
    expect(h.delivered.get(judgedTrace)).toBeUndefined()
    // The new owner (this member again, here) reads it from the committed offset and scores it.
    h.consumers[0]!.assign([0, 1])
    await untilCommittedToEnd(h)
    expect(h.scored.get(judgedTrace)).toBe(2)
    expect(h.delivered.get(judgedTrace)).toBe(1)
    for (const run of runs(h)) expect(h.delivered.get(run.traceId), run.traceId).toBe(1)
  })

  it('logs once per cause that spans arrived after their trace was released, naming what to tune', async () => {
    const { lines, logger } = captureLogs()
    const h = harness({ runs: 4, source: { logger } })
    await h.source.start()
    await untilCommittedToEnd(h)
    // The record of a trace scored long ago arrives again, twice: every span in it is late.
    const scored = runs(h)[0]!
    const record = h.topic.records(scored.partition)[scored.offset]!
    h.topic.append(scored.partition, [{ value: record.value }, { value: record.value }])
    await waitFor('the late spans counted', () => h.source.stats().lateSpans > 0)
    expect(h.source.stats().lateSpansByRelease).toMatchObject({ settled: h.source.stats().lateSpans, age: 0 })
    await waitFor('a warning', () => lines.some((l) => l.releasedBy === 'settled'))
    await new Promise((resolve) => setTimeout(resolve, 50)) // a few more ticks: still one line
    const warnings = lines.filter((l) => l.releasedBy !== undefined)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ level: 40, releasedBy: 'settled' })
    expect(String(warnings[0]!.msg)).toContain('assembly.settleMs')
  })

  it('replaces a crashed consumer and goes on where it was, scoring every run once', async () => {
    let crashed = false
    const h = harness({ runs: 40 })
    await h.source.start()
    await waitFor('some runs delivered', () => h.delivered.size >= 5)
    h.consumers[0]!.crash(new Error('KafkaJSNonRetriableError: restart: false'))
    crashed = true
    await waitFor('a new consumer', () => h.consumers.length === 2)
    await untilCommittedToEnd(h)
    expect(crashed).toBe(true)
    expectScoredOnceAndDelivered(h)
    expect(h.source.stats().crashes).toBe(1)
    expect(h.source.ready()).toBe(true)
  })

  it('reports a consumer that keeps dying as failed and not ready', async () => {
    const h = harness({
      recoveryRetries: 2,
      // Consumers that never join: each dies a moment after it started.
      createConsumer: (topic) => {
        const c = topic.consumer()
        c.start = async (_name, handlers) => {
          setTimeout(() => handlers.onCrash(new Error('coordinator gone'), false), 1)
        }
        return c
      },
    })
    await h.source.start()
    const error = await h.source.failed
    expect((error as Error).message).toBe('coordinator gone')
    expect(h.consumers.length).toBe(3)
    expect(h.source.ready()).toBe(false)
  })

  it('goes on committing after a commit that never settles', async () => {
    const h = harness({ source: { commitTimeoutMs: 20 } })
    h.topic.hangCommits(1)
    await h.source.start()
    await untilCommittedToEnd(h)
    expectScoredOnceAndDelivered(h)
  })

  it('commits again after a rejoin what kafkajs answered but never committed while restarting', async () => {
    const h = harness({})
    // Every commit until the rejoin is answered but not made (kafkajs's runner not running).
    h.topic.dropCommits(Number.MAX_SAFE_INTEGER)
    await h.source.start()
    await waitFor(
      'everything delivered',
      () => h.source.stats().commits > 0 && h.delivered.size === runs(h).length,
    )
    await waitFor('a commit after the last delivery', () => h.source.stats().commits > 1)
    expect(h.topic.committed(0)).toBe(-1)
    h.topic.dropCommits(0)
    h.consumers[0]!.assign([0, 1]) // kafkajs restarted and joined again: same partitions
    await untilCommittedToEnd(h)
    expectScoredOnceAndDelivered(h)
  })

  it('pauses reading while deliveries are stuck and resumes when they move', async () => {
    const down = gate()
    // 300 runs take many fetch rounds to read, each after a timer turn: the 5 ms tick pauses first.
    const h = harness({ runs: 300, sink: () => down.opened, source: { maxQueuedTraces: 5 } })
    await h.source.start()
    await waitFor('paused', () => h.consumers[0]!.paused && h.source.stats().paused)
    const readWhilePaused = h.source.stats().records
    expect(readWhilePaused).toBeLessThan(h.placed.length)
    down.open()
    await untilCommittedToEnd(h)
    expect(h.consumers[0]!.paused).toBe(false)
    expectScoredOnceAndDelivered(h)
  })
})
