/**
 * The sampling door: a trace no scorer can score is passed by as it is read (counted: its spans
 * are never decoded, assembled nor transformed, and its records' offsets advance), and a trace an
 * `alwaysScore` rule claims is scored whatever the rate says. The work is counted, not timed.
 */

import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { until } from '../../test/helpers/poll.ts'
import type { ScorerEntry } from '../config/schema.ts'
import type { Span } from '../model/index.ts'
import { silentLogger } from '../ops/logger.ts'
import { scoreTrace, type TraceScores } from '../score-trace.ts'
import { createScorer } from '../scoring/create-scorer.ts'
import { shouldSample } from '../scoring/sampling.ts'
import { isGenAiSpan } from '../transform/index.ts'
import { createDeadLetterProducer } from './dead-letter-producer.ts'
import { ScannedSpans } from './decode/scan-proto.ts'
import { type SamplingDoor, samplingDoorOf } from './sampling-door.ts'
import { createSpanSource, type IngestedTrace, type SpanSource } from './span-source.ts'
import {
  byTrace,
  chunks,
  encodeOtlpJson,
  encodeOtlpProto,
  generateAgentTraffic,
  isGeneratedAgentSpan,
} from './testing/agent-traffic.ts'
import { createMemoryTopic } from './testing/memory-consumer.ts'

const silent = silentLogger()
const scorer = createScorer({ id: 'length', description: 'output messages', type: 'agent' }).generateScore(
  ({ run }) => (run.output.length > 0 ? 1 : 0),
)
const entry = (more: Partial<ScorerEntry>) => ({ scorer, ...more }) as ScorerEntry

describe('samplingDoorOf', () => {
  it('lets in what the highest rate samples, and no door when a scorer samples everything', () => {
    const ratio = (rate: number) => ({ type: 'ratio' as const, rate })
    expect(
      samplingDoorOf({ a: entry({ sampling: ratio(0.1) }), b: entry({ sampling: ratio(0.25) }) }),
    ).toEqual({
      rate: 0.25,
    })
    expect(samplingDoorOf({ a: entry({ sampling: ratio(0.1) }), b: entry({}) })).toBeUndefined()
    expect(samplingDoorOf({ a: entry({ sampling: { type: 'none' } }) })).toBeUndefined()
    expect(samplingDoorOf({ a: entry({ sampling: ratio(1) }) })).toBeUndefined()
    expect(samplingDoorOf({})).toBeUndefined()
    expect(
      samplingDoorOf({
        a: entry({ sampling: ratio(0.1), alwaysScore: { errors: true } }),
        b: entry({ sampling: ratio(0), alwaysScore: { agentNames: ['triage'] } }),
      }),
    ).toEqual({ rate: 0.1, claims: { errors: true, agentNames: ['triage'] } })
  })
})

const sources: SpanSource[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  await Promise.all(sources.splice(0).map((s) => s.stop({ commit: false })))
})

/** What the source did per trace id: role questions asked, spans decoded, traces scored. */
interface Work {
  roleAsked: Set<string>
  decoded: Set<string>
  processed: Set<string>
}

/**
 * Agent runs and plain traces, five traces a record over 2 partitions, read through `door` by a
 * span source whose `process` is `score` (counting which traces reach it).
 */
async function readThroughDoor(options: {
  door: SamplingDoor | undefined
  encode?: (spans: ReadableSpan[]) => Buffer
  failRun?: (traceId: string) => boolean
  score?: (trace: IngestedTrace) => Promise<unknown>
}) {
  const traffic = generateAgentTraffic({ runs: 60, plainTraces: 20, seed: 11 })
  const failed = traffic.runs.find((r) => options.failRun?.(r.traceId))
  if (failed) {
    const agent = failed.spans.find((s) => s.spanContext().spanId === failed.agentSpanId)!
    ;(agent as { status: unknown }).status = { code: 2, message: 'the weather service is down' }
  }
  const topic = createMemoryTopic('spans', 2)
  const traces = [...byTrace(traffic.spans)]
  chunks(traces, 5).forEach((group, i) => {
    topic.append(i % 2, [{ value: (options.encode ?? encodeOtlpProto)(group.flatMap(([, spans]) => spans)) }])
  })
  const work: Work = { roleAsked: new Set(), decoded: new Set(), processed: new Set() }
  const spanOf = ScannedSpans.prototype.span
  vi.spyOn(ScannedSpans.prototype, 'span').mockImplementation(function (this: ScannedSpans, i: number) {
    work.decoded.add(this.traceId(i))
    return spanOf.call(this, i)
  })
  const asked = (predicate: (span: Span) => boolean) => (span: Span) => {
    work.roleAsked.add(span.traceId)
    return predicate(span)
  }
  const source = createSpanSource<unknown>({
    consumer: topic.consumer({ batchSize: 2 }),
    topic: 'spans',
    encoding: 'auto',
    deadLetters: createDeadLetterProducer({ topic: 'dlq', send: async () => {}, logger: silent }),
    isAgentRunSpan: asked(isGeneratedAgentSpan),
    isGenAiSpan: asked(isGenAiSpan),
    door: options.door,
    settleMs: 20,
    tickMs: 5,
    commitIntervalMs: 5,
    logger: silent,
    async process(trace) {
      work.processed.add(trace.traceId)
      return options.score?.(trace)
    },
    targets: [{ name: 'sink', deliver: async () => {} }],
  })
  sources.push(source)
  await source.start()
  const committedToEnd = () => [0, 1].every((p) => topic.committed(p) === topic.records(p).length)
  await until(committedToEnd, 60_000, () => 'committed to the end')
  return { traffic, traces, work, stats: source.stats(), failed }
}

describe('a span source behind the sampling door', () => {
  const door = { rate: 0.3 }
  const passes = (traceId: string) => shouldSample(traceId, door.rate)

  for (const [encoding, encode] of [
    ['protobuf', encodeOtlpProto],
    ['OTLP/JSON', encodeOtlpJson],
  ] as const) {
    it(`passes by every trace the highest rate rejects (${encoding}): never decoded, assembled nor transformed`, async () => {
      const { traffic, traces, work, stats } = await readThroughDoor({ door, encode })
      const rejected = traces.filter(([id]) => !passes(id))
      const admittedRuns = traffic.runs.filter((r) => passes(r.traceId))
      expect(rejected.length).toBeGreaterThan(20) // the case is there to test
      expect(admittedRuns.length).toBeGreaterThan(5)
      for (const [id] of rejected) {
        expect(work.roleAsked.has(id), `role of ${id} asked`).toBe(false)
        expect(work.decoded.has(id), `${id} decoded`).toBe(false)
        expect(work.processed.has(id), `${id} transformed`).toBe(false)
      }
      // Every run the rate picks was scored; only they were assembled.
      expect([...work.processed].sort()).toEqual(admittedRuns.map((r) => r.traceId).sort())
      expect(stats.tracesReleased).toBe(traces.length - rejected.length)
      expect(stats.passedByTraces).toBe(rejected.length)
      expect(stats.passedBySpans).toBe(rejected.reduce((n, [, spans]) => n + spans.length, 0))
      expect(stats.spans).toBe(traffic.spans.length)
      expect(stats).toMatchObject({ bufferedSpans: 0, openTraces: 0, lateSpans: 0, deadLetters: 0 })
    })
  }

  it('without a door, lets every trace in (the baseline the counts above are measured against)', async () => {
    const { traces, work, stats } = await readThroughDoor({ door: undefined })
    expect(stats.passedBySpans).toBe(0)
    expect(stats.tracesReleased).toBe(traces.length)
    expect(traces.filter(([id]) => !passes(id) && work.roleAsked.has(id)).length).toBeGreaterThan(20)
  })
})

describe('the sampling door and alwaysScore', () => {
  const scorers = {
    sampled: entry({ sampling: { type: 'ratio', rate: 0.1 }, alwaysScore: { errors: true } }),
  }
  const score = (scores: Map<string, TraceScores>) => async (trace: IngestedTrace) => {
    scores.set(trace.traceId, await scoreTrace(trace.spans, { scorers }))
  }
  const rejectedByRate = (traceId: string) => !shouldSample(traceId, 0.1)

  it('scores a failed run the rate rejects, and passes by the rejected runs no rule claims', async () => {
    const scores = new Map<string, TraceScores>()
    const door = samplingDoorOf(scorers)!
    expect(door.claims).toEqual({ errors: true, agentNames: [] })
    const { traffic, work, stats, failed } = await readThroughDoor({
      door,
      failRun: rejectedByRate,
      score: score(scores),
    })
    expect(failed).toBeDefined()
    const decision = scores.get(failed!.traceId)?.decisions[0]
    expect(decision).toMatchObject({ scorer: 'sampled', outcome: 'scored', spanId: failed!.agentSpanId })
    expect(scores.get(failed!.traceId)?.runs[0]?.status).toBe('error')
    // The other runs the rate rejects were held for a claim that did not come: never decoded or transformed.
    const unclaimed = traffic.runs.filter((r) => rejectedByRate(r.traceId) && r !== failed)
    expect(unclaimed.length).toBeGreaterThan(40)
    for (const run of unclaimed) {
      expect(work.decoded.has(run.traceId), `${run.traceId} decoded`).toBe(false)
      expect(work.roleAsked.has(run.traceId), `role of ${run.traceId} asked`).toBe(false)
      expect(work.processed.has(run.traceId), `${run.traceId} transformed`).toBe(false)
    }
    // Runs the rate picks are scored as before.
    for (const run of traffic.runs.filter((r) => !rejectedByRate(r.traceId)))
      expect(scores.get(run.traceId)?.decisions[0]?.outcome).toBe('scored')
    expect(stats.passedByTraces).toBeGreaterThanOrEqual(unclaimed.length)
  })

  it('the same run, through a door without the claims, is passed by (the rule is what keeps it)', async () => {
    const scores = new Map<string, TraceScores>()
    const { failed } = await readThroughDoor({
      door: { rate: 0.1 },
      failRun: rejectedByRate,
      score: score(scores),
    })
    expect(scores.has(failed!.traceId)).toBe(false)
  })
})
