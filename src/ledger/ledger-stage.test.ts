/**
 * The ledger in the at-least-once core, with plain data: the span source on the in-memory
 * consumer port scoring through the ledger stage on an in-memory ledger topic. A process that
 * scored and delivered everything but committed nothing (a kill -9) is followed by one that reads
 * it all again: no scorer call, and every score delivered again byte for byte. `rescore` scores
 * everything again; a scorer version change scores again by its key; a failed ledger write holds
 * the delivery and the offsets.
 */
import { resourceFromAttributes } from '@opentelemetry/resources'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { until } from '../../test/helpers/poll.ts'
import { resolveConfig } from '../config/define-config.ts'
import { createDeadLetterProducer } from '../ingest/dead-letter-producer.ts'
import type { DeliveryTarget } from '../ingest/delivery-queue.ts'
import { createSpanSource, type SpanSource } from '../ingest/span-source.ts'
import {
  byTrace,
  encodeOtlpProto,
  generateAgentTraffic,
  isGeneratedAgentSpan,
} from '../ingest/testing/agent-traffic.ts'
import { createMemoryTopic, type MemoryTopic } from '../ingest/testing/memory-consumer.ts'
import { silentLogger } from '../ops/logger.ts'
import { createMetrics } from '../ops/metrics.ts'
import { scoreTrace } from '../score-trace.ts'
import { createScorer } from '../scoring/create-scorer.ts'
import type { DeliverableScores } from '../sink/delivery-targets.ts'
import { toScoreSpan } from '../sink/score-span.ts'
import { serializeScoreSpanRequest } from '../sink/score-span-protobuf.ts'
import { createLedgerStage, type LedgerRecording, ledgerEnabled } from './ledger-stage.ts'
import { createMemoryLedgerLog, type MemoryLedgerLog } from './testing/memory-ledger-log.ts'

const logger = silentLogger()
const fast = { retries: Infinity, initialDelayMs: 2, maxDelayMs: 10, multiplier: 2, jitter: 0 }
const resource = resourceFromAttributes({ 'service.name': 'tracescore' })
type Scored = DeliverableScores & { ledger?: LedgerRecording }

/** A scorer that counts its calls per run and answers a different score each time (a judge would). */
function countingScorer(calls: Map<string, number>, id = 'judged') {
  return createScorer({ id, description: 'counts its calls', type: 'agent' }).generateScore(({ run }) => {
    calls.set(run.runId!, (calls.get(run.runId!) ?? 0) + 1)
    return Math.random()
  })
}

const sources: SpanSource[] = []
afterEach(async () => {
  await Promise.all(sources.splice(0).map((s) => s.stop({ commit: false })))
})

/** A topic with `runs` agent runs, one record per trace, spread over 3 partitions. */
function topicWithRuns(runs: number): { topic: MemoryTopic; runCount: number } {
  const topic = createMemoryTopic('spans', 3)
  const traffic = generateAgentTraffic({ runs, plainTraces: 2, seed: 11 })
  let i = 0
  for (const [traceId, spans] of byTrace(traffic.spans))
    topic.append(i++ % 3, [{ key: traceId, value: encodeOtlpProto(spans) }])
  return { topic, runCount: traffic.runs.length }
}

/** Delivered score spans: every arrival's protobuf bytes per score, in order. */
type Arrivals = Map<string, string[]>

/** One tracescore process: span source + ledger stage over the shared topic and ledger topic. */
async function startProcess(
  topic: MemoryTopic,
  ledgerLog: MemoryLedgerLog,
  arrivals: Arrivals,
  options: {
    scorers: Record<string, { scorer: unknown; version?: string }>
    rescore?: boolean
    commit?: boolean
  },
) {
  const config = resolveConfig({ ledger: { enabled: true }, scorers: options.scorers as never }, {})
  const metrics = createMetrics()
  const stage = createLedgerStage({
    config,
    kafka: {} as never,
    producer: {} as never,
    admin: {} as never,
    logger,
    metrics,
    log: ledgerLog,
    rescore: options.rescore,
  })
  await stage.start('spans', new AbortController().signal)
  const sink: DeliveryTarget<Scored> = {
    name: 'sink',
    deliver({ records }) {
      for (const r of records) {
        const bytes = Buffer.from(serializeScoreSpanRequest([toScoreSpan(r, { resource })])).toString('hex')
        const key = `${r.traceId}/${r.spanId}/${r.scorerId}`
        arrivals.set(key, [...(arrivals.get(key) ?? []), bytes])
      }
    },
  }
  const source = createSpanSource<Scored>({
    consumer: topic.consumer({ batchSize: 4 }),
    topic: 'spans',
    encoding: 'otlp_proto',
    deadLetters: createDeadLetterProducer({ topic: 'dlq', send: async () => {}, logger }),
    isAgentRunSpan: isGeneratedAgentSpan,
    settleMs: 10,
    tickMs: 5,
    commitIntervalMs: options.commit === false ? false : 5,
    deliveryPolicy: fast,
    logger,
    onAssigned: stage.onAssigned,
    async process(trace) {
      // As the pipeline scores (src/pipeline.ts): after the ledger of the trace's partitions is loaded.
      const fromLedger = await stage.scoring()!.prepare(trace)
      const scores = await scoreTrace(trace.spans, { scorers: config.scorers, recorded: fromLedger.recorded })
      return { ...scores, ledger: fromLedger.recording(scores) }
    },
    targets: stage.targets([sink]),
  })
  sources.push(source)
  await source.start()
  return { source, metrics, stage }
}

const counter = async (metrics: ReturnType<typeof createMetrics>, name: string) =>
  (await metrics.registry.getSingleMetric(name)!.get()).values

describe('score ledger in the at-least-once core', () => {
  it('after a crash that committed nothing, every run is delivered again unchanged and no scorer runs again', async () => {
    const { topic, runCount } = topicWithRuns(30)
    const ledgerLog = createMemoryLedgerLog(3)
    const calls = new Map<string, number>()
    const arrivals: Arrivals = new Map()
    const scorers = { judged: { scorer: countingScorer(calls) } }
    const first = await startProcess(topic, ledgerLog, arrivals, { scorers, commit: false })
    await until(
      () => arrivals.size === runCount,
      30_000,
      () => `first pass ${arrivals.size}/${runCount}`,
    )
    await first.source.stop({ commit: false }) // killed: nothing committed
    expect([0, 1, 2].map((p) => topic.committed(p))).toEqual([-1, -1, -1])
    expect(calls.size).toBe(runCount)

    const second = await startProcess(topic, ledgerLog, arrivals, { scorers })
    await until(
      () => [...arrivals.values()].every((a) => a.length === 2),
      30_000,
      () => 'every score delivered again',
    )
    await until(
      () => [0, 1, 2].every((p) => topic.committed(p) === topic.records(p).length),
      30_000,
      () => 'committed to the end',
    )
    // No scorer ran again, and each re-delivered score span is the same bytes (same id, value, time).
    expect([...calls.values()].every((n) => n === 1)).toBe(true)
    for (const [key, [a, b]] of arrivals) expect(b, key).toBe(a)
    const lookups = await counter(second.metrics, 'tracescore_ledger_lookups_total')
    expect(lookups).toEqual([{ labels: { scorer: 'judged', result: 'hit' }, value: runCount }])
    const writes = await counter(first.metrics, 'tracescore_ledger_writes_total')
    expect(writes).toEqual([{ labels: { scorer: 'judged' }, value: runCount }])
    // Ledger partition = input partition of the run's record.
    const written = [0, 1, 2].map((p) => ledgerLog.records(p).length)
    expect(written).toEqual([0, 1, 2].map((p) => topic.records(p).length - (p < 2 ? 1 : 0)))
  })

  it('rescore scores every run again; a new scorer version is a new key', async () => {
    const { topic, runCount } = topicWithRuns(12)
    const ledgerLog = createMemoryLedgerLog(3)
    const calls = new Map<string, number>()
    const arrivals: Arrivals = new Map()
    const first = await startProcess(topic, ledgerLog, arrivals, {
      scorers: { judged: { scorer: countingScorer(calls) } },
      commit: false,
    })
    await until(
      () => arrivals.size === runCount,
      30_000,
      () => 'first pass',
    )
    await first.source.stop({ commit: false })

    await startProcess(topic, ledgerLog, arrivals, {
      scorers: { judged: { scorer: countingScorer(calls) } },
      rescore: true,
      commit: false,
    })
    await until(
      () => [...calls.values()].every((n) => n === 2) && calls.size === runCount,
      30_000,
      () => 'rescored',
    )
    await sources.at(-1)!.stop({ commit: false })
    await until(
      () => [...arrivals.values()].every((a) => a.length === 2),
      30_000,
      () => 'rescored delivered',
    )
    // Different values (a judge answering differently), same score span ids.
    expect([...arrivals.values()].filter(([a, b]) => a !== b).length).toBe(runCount)

    await startProcess(topic, ledgerLog, arrivals, {
      scorers: { judged: { scorer: countingScorer(calls), version: '2' } },
      commit: false,
    })
    await until(
      () => [...calls.values()].every((n) => n === 3),
      30_000,
      () => 'version 2 scored',
    )
  })

  it('a failed ledger write holds the delivery and the offsets until it is written', async () => {
    const { topic, runCount } = topicWithRuns(6)
    const ledgerLog = createMemoryLedgerLog(3)
    ledgerLog.failWrites(5)
    const calls = new Map<string, number>()
    const arrivals: Arrivals = new Map()
    const delivered: number[] = []
    const scorers = { judged: { scorer: countingScorer(calls) } }
    const { source } = await startProcess(topic, ledgerLog, arrivals, { scorers })
    await until(
      () => arrivals.size === runCount,
      30_000,
      () => 'delivered',
    )
    for (const [key] of arrivals) {
      const [traceId, spanId] = key.split('/')
      delivered.push(
        [0, 1, 2].filter((p) =>
          ledgerLog.records(p).some((r) => String(r.key).startsWith(`${traceId}/${spanId}`)),
        ).length,
      )
    }
    // Every delivered run is in the ledger, each scored once although writes failed 5 times.
    expect(delivered.every((n) => n === 1)).toBe(true)
    expect([...calls.values()].every((n) => n === 1)).toBe(true)
    expect(source.stats().deliveryFailures).toBeGreaterThanOrEqual(5)
  })
})

describe("ledger.enabled: 'auto' (the default)", () => {
  const codeScorer = createScorer({ id: 'code', description: 'code only', type: 'agent' }).generateScore(
    () => 1,
  )
  const judgeScorer = createScorer({
    id: 'judge',
    description: 'asks a judge',
    type: 'agent',
    judge: { model: 'acme/judge', instructions: 'Judge.' },
  })
    .analyze({
      description: 'judge it',
      outputSchema: z.object({ ok: z.boolean() }),
      createPrompt: () => 'Is it good?',
    })
    .generateScore(({ results }) => (results.analyzeStepResult.ok ? 1 : 0))
  const enabledFor = (scorers: Record<string, unknown>, enabled?: boolean | 'auto') =>
    ledgerEnabled(
      resolveConfig(
        { scorers: scorers as never, ...(enabled === undefined ? {} : { ledger: { enabled } }) },
        {},
      ),
    )

  it('is the default, on when a registered scorer has a judge step, off for code scorers alone', () => {
    expect(resolveConfig({}, {}).ledger.enabled).toBe('auto')
    expect(enabledFor({ a: { scorer: codeScorer } })).toBe(false)
    expect(enabledFor({ a: { scorer: codeScorer }, b: { scorer: judgeScorer } })).toBe(true)
    expect(enabledFor({})).toBe(false)
  })

  it('true and false are kept whatever the scorers', () => {
    expect(enabledFor({ a: { scorer: codeScorer } }, true)).toBe(true)
    expect(enabledFor({ b: { scorer: judgeScorer } }, false)).toBe(false)
  })
})
