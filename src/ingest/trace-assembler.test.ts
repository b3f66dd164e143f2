import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import type { Span } from '../model/index.ts'
import { decodeOtlpTraces } from './decode/index.ts'
import { decodeWork } from './decode/protobuf-reader.ts'
import { scanOtlpProto } from './decode/scan-proto.ts'
import { PartitionWatermark } from './partition-watermark.ts'
import { encodeOtlpProto, generateAgentTraffic, isGeneratedAgentSpan } from './testing/agent-traffic.ts'
import { TraceAssembler, type TraceAssemblerOptions } from './trace-assembler.ts'

const T1 = 'a'.repeat(32)
const T2 = 'b'.repeat(32)
const T3 = 'c'.repeat(32)
const T4 = 'd'.repeat(32)

const span = (traceId: string, spanId: string, extra: Partial<Span> = {}): Span => ({
  traceId,
  spanId,
  parentSpanId: 'f'.repeat(16),
  name: 'step',
  kind: 1,
  startTimeUnixNano: '1000',
  endTimeUnixNano: '2000',
  attributes: {},
  events: [],
  links: [],
  status: { code: 0 },
  resource: {},
  scope: { name: 'test' },
  ...extra,
})
const agent = (traceId: string, spanId: string, extra: Partial<Span> = {}) =>
  span(traceId, spanId, { name: 'invoke_agent', ...extra })

const setup = (options: Partial<TraceAssemblerOptions> = {}) => {
  const clock = { t: 1_000_000 }
  const assembler = new TraceAssembler<string>({
    isAgentRunSpan: (s) => s.name === 'invoke_agent',
    now: () => clock.t,
    settleMs: 1_000,
    maxTraceAgeMs: 60_000,
    ...options,
  })
  return { clock, assembler }
}

describe('TraceAssembler', () => {
  it('releases an agent run only after its agent span ended and the trace settled', () => {
    const { clock, assembler } = setup()
    expect(assembler.add([span(T1, '01'), span(T1, '02')], 'r1')).toEqual({ traces: 1, lateSpans: 0 })
    clock.t += 5_000
    expect(assembler.takeReady()).toEqual([]) // no agent span and no root yet: keep waiting
    assembler.add([agent(T1, '03')], 'r2')
    clock.t += 999
    expect(assembler.takeReady()).toEqual([])
    clock.t += 1
    const [ready, ...rest] = assembler.takeReady()
    expect(rest).toEqual([])
    expect(ready).toMatchObject({
      traceId: T1,
      agentSpanIds: ['03'],
      incomplete: false,
      reason: 'settled',
      supersedes: false,
      recordRefs: ['r1', 'r2'],
    })
    expect(ready!.spans.map((s) => s.spanId)).toEqual(['01', '02', '03'])
    expect(assembler.stats()).toMatchObject({ openTraces: 0, bufferedSpans: 0, bufferedBytes: 0 })
  })

  it('restarts the quiet period on every new span of the trace', () => {
    const { clock, assembler } = setup()
    assembler.add([agent(T1, '01')], 'r1')
    clock.t += 800
    assembler.add([span(T1, '02')], 'r2')
    clock.t += 800
    expect(assembler.takeReady()).toEqual([])
    clock.t += 200
    expect(assembler.takeReady().map((t) => t.spans.length)).toEqual([2])
  })

  it('waits while an agent span has not ended', () => {
    const { clock, assembler } = setup()
    assembler.add([agent(T1, '01', { endTimeUnixNano: '0' })], 'r1')
    clock.t += 10_000
    expect(assembler.takeReady()).toEqual([])
    clock.t += 50_000
    expect(assembler.takeReady()).toMatchObject([{ traceId: T1, reason: 'age', incomplete: true }])
  })

  it('finishes a trace without agent spans once its root settled, with no runs to score', () => {
    const { clock, assembler } = setup()
    assembler.add([span(T1, '01'), span(T1, '02', { parentSpanId: undefined })], 'r1')
    clock.t += 1_000
    expect(assembler.takeReady()).toMatchObject([
      { traceId: T1, agentSpanIds: [], hasGenAi: false, incomplete: false, reason: 'settled' },
    ])
  })

  it('hands over for scoring a trace whose GenAI spans are all model or tool spans', () => {
    // A CrewAI delegation is headed by its tool span; smolagents steps may have lost their agent span.
    const { clock, assembler } = setup({
      isGenAiSpan: (s) => s.name === 'invoke_agent' || s.name === 'execute_tool',
    })
    assembler.add(
      [span(T1, '01', { parentSpanId: undefined }), span(T1, '02', { name: 'execute_tool' })],
      'r1',
    )
    assembler.add([span(T2, '03', { parentSpanId: undefined }), span(T2, '04', { name: 'GET /' })], 'r2')
    clock.t += 1_000
    expect(assembler.takeReady()).toMatchObject([
      { traceId: T1, agentSpanIds: [], hasGenAi: true },
      { traceId: T2, agentSpanIds: [], hasGenAi: false },
    ])
  })

  it('tells a re-release which agent spans an earlier release scored', () => {
    const { clock, assembler } = setup()
    assembler.add([agent(T1, '01', { parentSpanId: undefined })], 'r1')
    clock.t += 1_000
    expect(assembler.takeReady()).toMatchObject([{ agentSpanIds: ['01'], hasGenAi: true }])
    expect(assembler.takeReady()[0]?.scoredAgentSpanIds).toBeUndefined()
    assembler.add([agent(T1, '02')], 'r2')
    clock.t += 1_000
    expect(assembler.takeReady()).toMatchObject([
      { agentSpanIds: ['02'], scoredAgentSpanIds: ['01'], hasGenAi: true },
    ])
  })

  it('finalizes stragglers at maxTraceAgeMs, flagged incomplete, even when spans keep coming', () => {
    const { clock, assembler } = setup()
    assembler.add([span(T1, '01')], 'r1')
    for (let i = 0; i < 60; i++) {
      clock.t += 999
      assembler.add([span(T1, `x${i}`)], `r${i + 2}`)
      expect(assembler.takeReady()).toEqual([])
    }
    clock.t += 60
    const ready = assembler.takeReady()
    expect(ready).toMatchObject([{ traceId: T1, reason: 'age', incomplete: true }])
    expect(ready[0]!.spans).toHaveLength(61)
    // A straggler after that is late, counted as late after an age release.
    assembler.add([span(T1, 'after')], 'r99')
    expect(assembler.stats().lateSpansByRelease).toEqual({ settled: 0, age: 1, cap: 0, flush: 0 })
  })

  it('caps buffered spans by finalizing the oldest traces first', () => {
    const { clock, assembler } = setup({ maxBufferedSpans: 4 })
    assembler.add([span(T1, '01'), span(T1, '02')], 'r1')
    clock.t += 10
    assembler.add([span(T2, '01'), span(T2, '02')], 'r2')
    clock.t += 10
    assembler.add([span(T3, '01')], 'r3')
    expect(assembler.stats().bufferedSpans).toBe(3)
    expect(assembler.takeReady()).toMatchObject([{ traceId: T1, reason: 'cap', incomplete: true }])
    expect(assembler.stats()).toMatchObject({ bufferedSpans: 3, openTraces: 2 })
  })

  it('caps buffered bytes using the payload size apportioned over the spans', () => {
    const { assembler } = setup({ maxBufferedBytes: 1_000 })
    assembler.add([span(T1, '01'), span(T1, '02')], 'r1', 600)
    expect(assembler.stats().bufferedBytes).toBe(600)
    assembler.add([span(T2, '01')], 'r2', 500)
    expect(assembler.takeReady().map((t) => t.traceId)).toEqual([T1])
    expect(assembler.stats().bufferedBytes).toBe(500)
  })

  it('counts how many traces a multi-trace record feeds, and lists each record once per trace', () => {
    const { clock, assembler } = setup()
    expect(assembler.add([agent(T1, '01'), span(T2, '01'), span(T1, '02'), agent(T2, '02')], 'r1')).toEqual({
      traces: 2,
      lateSpans: 0,
    })
    expect(assembler.add([span(T1, '03')], 'r2').traces).toBe(1)
    clock.t += 1_000
    const ready = assembler.takeReady()
    expect(new Map(ready.map((t) => [t.traceId, t.recordRefs]))).toEqual(
      new Map([
        [T1, ['r1', 'r2']],
        [T2, ['r1']],
      ]),
    )
  })

  it('ignores a span delivered twice (Kafka redelivery) but still holds the new record', () => {
    const { clock, assembler } = setup()
    assembler.add([agent(T1, '01')], 'r1')
    expect(assembler.add([agent(T1, '01')], 'r1-again').traces).toBe(1)
    clock.t += 1_000
    const [ready] = assembler.takeReady()
    expect(ready!.spans).toHaveLength(1)
    expect(ready!.recordRefs).toEqual(['r1', 'r1-again'])
    expect(assembler.stats().duplicateSpans).toBe(1)
  })

  it('ignores duplicates in a large trace too (beyond the span count checked by scanning)', () => {
    const { clock, assembler } = setup()
    const ids = Array.from({ length: 40 }, (_, i) => String(i).padStart(2, '0'))
    assembler.add([agent(T1, 'a0'), ...ids.slice(0, 30).map((id) => span(T1, id))], 'r1')
    assembler.add([...ids.slice(10).map((id) => span(T1, id)), span(T2, '01')], 'r2')
    clock.t += 1_000
    const [ready] = assembler.takeReady()
    expect(ready!.spans.map((s) => s.spanId)).toEqual(['a0', ...ids])
    expect(assembler.stats().duplicateSpans).toBe(20)
  })

  it('forgets the oldest released traces beyond maxReleasedTraces, re-released ones by their last release', () => {
    const { clock, assembler } = setup({ maxReleasedTraces: 2 })
    const late = (traceId: string) => assembler.add([span(traceId, 'late')], 'late').lateSpans
    assembler.add([agent(T1, '01')], 'r1')
    clock.t += 1_000
    assembler.takeReady()
    // A late agent run reopens T1: released again, it becomes the newest remembered trace.
    assembler.add([agent(T1, '02')], 'r2')
    assembler.add([agent(T2, '01')], 'r3')
    clock.t += 1_000
    expect(assembler.takeReady().map((t) => t.traceId)).toEqual([T1, T2])
    assembler.add([agent(T3, '01')], 'r4')
    clock.t += 1_000
    assembler.takeReady()
    expect(late(T1)).toBe(0) // the oldest release, forgotten: its spans open a new trace
    expect(late(T2)).toBe(1)
    expect(late(T3)).toBe(1)
  })

  it('counts late spans of a released trace and holds nothing for them', () => {
    const { clock, assembler } = setup()
    assembler.add([agent(T1, '01')], 'r1')
    clock.t += 1_000
    expect(assembler.takeReady()).toHaveLength(1)
    expect(assembler.add([span(T1, '02'), span(T1, '03')], 'r2')).toEqual({ traces: 0, lateSpans: 2 })
    clock.t += 5_000
    expect(assembler.takeReady()).toEqual([])
    expect(assembler.stats().lateSpans).toBe(2)
    expect(assembler.stats().lateSpansByRelease).toEqual({ settled: 2, age: 0, cap: 0, flush: 0 })
  })

  it('re-releases a trace with late spans, superseding, when rescoreLateSpans is set', () => {
    const { clock, assembler } = setup({ rescoreLateSpans: true })
    assembler.add([agent(T1, '01'), span(T1, '02')], 'r1')
    clock.t += 1_000
    expect(assembler.takeReady()).toMatchObject([{ supersedes: false }])
    expect(assembler.add([span(T1, '03')], 'r2')).toEqual({ traces: 1, lateSpans: 1 })
    clock.t += 1_000
    const [again] = assembler.takeReady()
    expect(again).toMatchObject({ traceId: T1, supersedes: true, agentSpanIds: ['01'], recordRefs: ['r2'] })
    expect(again!.spans.map((s) => s.spanId)).toEqual(['01', '02', '03'])
    expect(assembler.stats().rereleasedTraces).toBe(1)
  })

  it('still scores a late agent run that was not part of the earlier release (nested agents)', () => {
    const { clock, assembler } = setup()
    assembler.add([agent(T1, 'inner')], 'r1')
    clock.t += 1_000
    expect(assembler.takeReady()).toMatchObject([{ agentSpanIds: ['inner'] }])
    assembler.add([agent(T1, 'outer', { parentSpanId: undefined })], 'r2')
    clock.t += 1_000
    expect(assembler.takeReady()).toMatchObject([
      { agentSpanIds: ['outer'], supersedes: false, incomplete: true, recordRefs: ['r2'] },
    ])
  })

  it('forgets released traces after the late window, so their spans start a new trace', () => {
    const { clock, assembler } = setup({ lateWindowMs: 10_000 })
    assembler.add([agent(T1, '01')], 'r1')
    clock.t += 1_000
    assembler.takeReady()
    clock.t += 10_000
    assembler.takeReady()
    expect(assembler.add([span(T1, '02')], 'r2')).toEqual({ traces: 1, lateSpans: 0 })
  })

  it('forgets released traces on request: their spans read again are new, not late', () => {
    const { clock, assembler } = setup()
    assembler.add([agent(T1, 'a1'), span(T1, 's1', { parentSpanId: 'a1' })], 'r1')
    clock.t += 2_000
    expect(assembler.takeReady().map((t) => t.traceId)).toEqual([T1])
    assembler.forget([T1])
    const again = assembler.add([agent(T1, 'a1'), span(T1, 's1', { parentSpanId: 'a1' })], 'r1')
    expect(again).toEqual({ traces: 1, lateSpans: 0 })
    clock.t += 2_000
    expect(assembler.takeReady().map((t) => [t.traceId, t.agentSpanIds])).toEqual([[T1, ['a1']]])
  })

  it('discards traces whose records all match (revoked partitions) and keeps the rest', () => {
    const { clock, assembler } = setup()
    assembler.add([agent(T1, '01')], 'p0:1')
    assembler.add([agent(T2, '01')], 'p1:1')
    assembler.add([span(T2, '02')], 'p0:2')
    expect(assembler.discard((ref) => ref.startsWith('p0:'))).toBe(1)
    clock.t += 1_000
    expect(assembler.takeReady().map((t) => t.traceId)).toEqual([T2])
  })

  it('keeps the oldest open trace first while thousands of younger ones come and go around it', () => {
    const { clock, assembler } = setup() // maxTraceAgeMs 60 s
    assembler.add([span(T1, '01')], 'old') // never completes: no root, no agent span
    const id = (n: number) => n.toString(16).padStart(32, '0')
    for (let n = 0; n < 5_000; n++) {
      assembler.add([span(id(n), '01', { parentSpanId: undefined })], `r${n}`)
      if (n % 100 === 99) {
        clock.t += 1_000
        assembler.takeReady()
      }
      if (n === 2_500) assembler.discard((ref) => ref === 'r2500')
    }
    clock.t += 1_000
    const settled = assembler.takeReady()
    expect(settled.map((t) => t.reason)).not.toContain('age')
    expect(assembler.stats()).toMatchObject({ openTraces: 1, bufferedSpans: 1, releasedTraces: 4_999 })
    clock.t += 10_000
    expect(assembler.takeReady()).toMatchObject([{ traceId: T1, reason: 'age', incomplete: true }])
    expect(assembler.stats()).toMatchObject({ openTraces: 0, bufferedSpans: 0 })
    // Released traces are remembered: a span of one now is late, and the discarded one is new.
    expect(assembler.add([span(id(4_990), '02')], 'late')).toEqual({ traces: 0, lateSpans: 1 })
    expect(assembler.add([span(id(2_500), '02')], 'again')).toEqual({ traces: 1, lateSpans: 0 })
  })

  it('keeps settling, ageing and forgetting right on a clock that ran for a month (beyond one relative base)', () => {
    const { clock, assembler } = setup({ lateWindowMs: 30_000 })
    const day = 24 * 3600 * 1000
    clock.t = 1_796_300_000_000 // an epoch-ms clock, as Date.now() gives
    assembler.add([agent(T1, '01', { parentSpanId: undefined })], 'r1') // done, settles
    clock.t += 1_000
    expect(assembler.takeReady().map((t) => t.traceId)).toEqual([T1])
    for (let d = 1; d <= 30; d++) {
      clock.t += day
      expect(assembler.takeReady()).toEqual([])
      const open = `${d}`.padStart(32, '0')
      // Yesterday's trace was forgotten after the late window: a span of it opens a new trace.
      if (d > 1)
        expect(assembler.add([span(`${d - 1}`.padStart(32, '0'), '03')], `again${d}`)).toEqual({
          traces: 1,
          lateSpans: 0,
        })
      assembler.add([span(open, '01')], `d${d}`) // a root-less trace: open until its age
      clock.t += 59_999
      expect(assembler.takeReady().filter((t) => t.traceId === open)).toEqual([])
      clock.t += 1
      expect(assembler.takeReady().filter((t) => t.traceId === open)).toMatchObject([{ reason: 'age' }])
      // A span of the trace released just now is late.
      expect(assembler.add([span(open, '02')], `late${d}`)).toEqual({ traces: 0, lateSpans: 1 })
    }
    clock.t += 10_000
    expect(assembler.takeReady()).toEqual([]) // late spans reopen nothing
    assembler.add([agent(T3, '01', { parentSpanId: undefined })], 'r3')
    clock.t += 999
    expect(assembler.takeReady()).toEqual([])
    clock.t += 1
    expect(assembler.takeReady().map((t) => t.traceId)).toEqual([T3])
  })

  it('runs the quiet period only up to what the fetches proved read', () => {
    const read = { through: undefined as number | undefined }
    const { clock, assembler } = setup({ readThrough: () => read.through })
    const start = clock.t
    assembler.add([agent(T1, '01', { parentSpanId: undefined })], 'r1')
    read.through = start
    clock.t += 5_000 // no fetch completed since the span arrived: its trace's other spans may be unread
    expect(assembler.takeReady()).toEqual([])
    read.through = start + 999
    expect(assembler.takeReady()).toEqual([])
    read.through = start + 1_000
    expect(assembler.takeReady().map((t) => t.traceId)).toEqual([T1])
    // Ahead of the clock (another clock's rounding) it changes nothing: the clock still bounds it.
    assembler.add([agent(T2, '01', { parentSpanId: undefined })], 'r2')
    read.through = clock.t + 60_000
    clock.t += 999
    expect(assembler.takeReady()).toEqual([])
    clock.t += 1
    expect(assembler.takeReady().map((t) => t.traceId)).toEqual([T2])
    // Unknown (after a rejoin): the clock alone.
    assembler.add([agent(T3, '01', { parentSpanId: undefined })], 'r3')
    read.through = undefined
    clock.t += 1_000
    expect(assembler.takeReady().map((t) => t.traceId)).toEqual([T3])
  })

  it('flush releases everything now and marks traces that did not look complete', () => {
    const { assembler } = setup()
    assembler.add([agent(T1, '01'), span(T2, '01')], 'r1')
    expect(assembler.flush().map((t) => [t.traceId, t.incomplete, t.reason])).toEqual([
      [T1, false, 'flush'],
      [T2, true, 'flush'],
    ])
  })
})

describe('TraceAssembler on scanned protobuf records', () => {
  const traffic = generateAgentTraffic({ runs: 3, plainTraces: 5, seed: 7 })
  const payload = encodeOtlpProto(traffic.spans)

  it('releases the same traces as from decoded spans, decoding only those read', () => {
    const fromScan = setup({ isAgentRunSpan: isGeneratedAgentSpan })
    const fromDecode = setup({ isAgentRunSpan: isGeneratedAgentSpan })
    expect(fromScan.assembler.addBatch(scanOtlpProto(payload), 'r1', payload.length)).toEqual(
      fromDecode.assembler.add(decodeOtlpTraces(payload), 'r1', payload.length),
    )
    fromScan.clock.t += 1_000
    fromDecode.clock.t += 1_000
    const work = decodeWork()
    const released = fromScan.assembler.takeReady()
    const expected = fromDecode.assembler.takeReady()
    expect(decodeWork()).toBe(work) // released, not decoded
    expect(released.map((t) => [t.traceId, t.hasGenAi, t.agentSpanIds])).toEqual(
      expected.map((t) => [t.traceId, t.hasGenAi, t.agentSpanIds]),
    )
    expect(released.filter((t) => t.hasGenAi)).toHaveLength(3)
    expect(released.filter((t) => !t.hasGenAi)).toHaveLength(5)
    for (const [i, trace] of released.entries()) expect(trace.spans).toEqual(expected[i]!.spans)
    expect(fromScan.assembler.stats()).toEqual(fromDecode.assembler.stats())
  })

  it('keeps duplicate, late and re-scored spans apart as with decoded spans', () => {
    const { clock, assembler } = setup({ isAgentRunSpan: isGeneratedAgentSpan, rescoreLateSpans: true })
    assembler.addBatch(scanOtlpProto(payload), 'r1', payload.length)
    assembler.addBatch(scanOtlpProto(payload), 'r2', payload.length) // every span again
    // The runs' copies are found; the plain traces' are never looked for (their spans' ids are
    // never made) and are dropped with them.
    const runSpans = traffic.runs.reduce((n, run) => n + run.spans.length, 0)
    expect(assembler.stats()).toMatchObject({ duplicateSpans: runSpans })
    clock.t += 1_000
    const first = assembler.takeReady()
    expect(first).toHaveLength(8)
    const late = traffic.runs[0]!
    const again = encodeOtlpProto(late.spans.slice(0, 1))
    expect(assembler.addBatch(scanOtlpProto(again), 'r3', again.length)).toEqual({ traces: 1, lateSpans: 1 })
    clock.t += 1_000
    const [rescored] = assembler.takeReady()
    expect(rescored).toMatchObject({ traceId: late.traceId, supersedes: true, hasGenAi: true })
    expect(rescored!.spans.map((s) => s.spanId).sort()).toEqual(
      first
        .find((t) => t.traceId === late.traceId)!
        .spans.map((s) => s.spanId)
        .sort(),
    )
  })
})

describe('TraceAssembler: traces without GenAI activity cost no span ids', () => {
  const traffic = generateAgentTraffic({ runs: 2, plainTraces: 4, seed: 3 })
  const run = traffic.runs[0]!
  const [agentSpan] = run.spans.filter((s) => s.spanContext().spanId === run.agentSpanId)
  const others = run.spans.filter((s) => s !== agentSpan)

  it('makes no span id of a plain trace, and drops the duplicates of a run once its agent span comes', () => {
    const { clock, assembler } = setup({ isAgentRunSpan: isGeneratedAgentSpan })
    const asked = new Set<string>()
    const scanned = (spans: typeof traffic.spans) => {
      const batch = scanOtlpProto(encodeOtlpProto(spans))
      const spanId = batch.spanId.bind(batch)
      batch.spanId = (i) => {
        asked.add(batch.traceId(i))
        return spanId(i)
      }
      return batch
    }
    const plain = traffic.plainTraces.flat()
    assembler.addBatch(scanned(plain), 'r1')
    assembler.addBatch(scanned(plain), 'r2') // the plain traces again
    // The run's children twice (no GenAI activity yet: the generated predicate knows agent spans only).
    assembler.addBatch(scanned(others), 'r3')
    assembler.addBatch(scanned(others), 'r4')
    expect(asked.has(run.traceId)).toBe(true) // the role views of its model and tool spans have ids
    expect(asked.size).toBe(1)
    assembler.addBatch(scanned([agentSpan!]), 'r5')
    clock.t += 1_000
    const released = assembler.takeReady()
    const scored = released.find((t) => t.traceId === run.traceId)!
    expect(scored.hasGenAi).toBe(true)
    expect(scored.spans.map((s) => s.spanId).sort()).toEqual(
      run.spans.map((s) => s.spanContext().spanId).sort(),
    )
    expect(released.filter((t) => !t.hasGenAi)).toHaveLength(traffic.plainTraces.length)
    expect([...asked]).toEqual([run.traceId])
    expect(assembler.stats()).toMatchObject({ duplicateSpans: others.length, bufferedSpans: 0 })
  })
})

describe('TraceAssembler: event time (partitions advancing unevenly)', () => {
  const A = 0
  const B = 1
  const C = 2
  /** An assembler reading partitions A, B (and C) whose records carry times from 10,000 ms on. */
  const evented = () => {
    const watermark = new PartitionWatermark()
    const { clock, assembler } = setup({ watermark: () => watermark.current() })
    /** Reads one record of `partition` with time `at`; `toEnd` when it is the partition's last. */
    const read = (partition: number, at: number, spans: Span[], ref: string, toEnd = false) => {
      assembler.add(spans, ref, undefined, at)
      watermark.advance(partition, at, toEnd)
    }
    return { clock, assembler, watermark, read }
  }

  it('in a backlog where B lags A, keeps A traces whose spans are still unread on B', () => {
    const { clock, assembler, read } = evented()
    // Written live at 10,000: T1's agent span went to A, its tool span to B (null keys).
    // A is read far ahead (to 30,000); B only to 9,000, before T1's record there.
    read(B, 9_000, [agent(T2, '20', { parentSpanId: undefined })], 'b1')
    read(A, 10_000, [agent(T1, '10', { parentSpanId: undefined })], 'a1')
    read(A, 30_000, [span(T3, '30', { parentSpanId: undefined })], 'a2')
    clock.t += 5_000 // long past the quiet period on the clock
    // T2 (9,000) is behind the watermark (9,000) by less than settleMs: it waits too.
    expect(assembler.takeReady()).toEqual([])
    read(B, 10_000, [span(T1, '11', { parentSpanId: '10' })], 'b2')
    read(B, 10_500, [span(T4, '40', { parentSpanId: undefined })], 'b3')
    clock.t += 5_000
    // The watermark (10,500) passed T2 by 1,500 ms: T2 is ready; T1 (10,000) needs 11,000.
    expect(assembler.takeReady().map((t) => t.traceId)).toEqual([T2])
    read(B, 11_000, [span(T4, '41')], 'b4')
    clock.t += 999
    // The watermark passed T1 by settleMs, but T4 got a span less than settleMs ago on the clock.
    const ready = assembler.takeReady()
    expect(ready.map((t) => t.traceId)).toEqual([T1])
    expect(ready[0]).toMatchObject({ incomplete: false, reason: 'settled', recordRefs: ['a1', 'b2'] })
    expect(ready[0]!.spans.map((s) => s.spanId)).toEqual(['10', '11'])
    expect(assembler.stats().lateSpans).toBe(0)
  })

  it('does not let an idle partition (read to its end) hold the others back', () => {
    const { clock, assembler, read } = evented()
    read(C, 1_000, [span(T3, '30', { parentSpanId: undefined })], 'c1', true) // C: nothing more to read
    read(A, 10_000, [agent(T1, '10', { parentSpanId: undefined })], 'a1')
    read(B, 12_000, [span(T2, '20', { parentSpanId: undefined })], 'b1')
    clock.t += 1_000
    // The watermark is A's 10,000 (C is idle): T3 (1,000) is released, T1 waits for A.
    expect(assembler.takeReady().map((t) => t.traceId)).toEqual([T3])
    read(A, 11_000, [span(T4, '40')], 'a2')
    clock.t += 1_000
    expect(assembler.takeReady().map((t) => t.traceId)).toEqual([T1])
  })

  it('settles live traffic (every partition read to its end) by the clock alone', () => {
    const { clock, assembler, watermark, read } = evented()
    read(A, 10_000, [agent(T1, '10', { parentSpanId: undefined })], 'a1', true)
    read(B, 10_000, [span(T1, '11', { parentSpanId: '10' })], 'b1', true)
    expect(watermark.current()).toBeUndefined()
    clock.t += 999
    expect(assembler.takeReady()).toEqual([])
    clock.t += 1
    expect(assembler.takeReady()).toMatchObject([{ traceId: T1, reason: 'settled', incomplete: false }])
  })

  it('still needs the quiet period on the clock when the watermark is far ahead', () => {
    const { clock, assembler, read } = evented()
    read(A, 10_000, [agent(T1, '10', { parentSpanId: undefined })], 'a1')
    read(A, 50_000, [span(T2, '20')], 'a2')
    clock.t += 999
    expect(assembler.takeReady()).toEqual([])
    clock.t += 1
    expect(assembler.takeReady().map((t) => t.traceId)).toEqual([T1])
  })

  it('bounds a trace the watermark holds by maxTraceAgeMs', () => {
    const { clock, assembler, read } = evented()
    read(B, 1_000, [span(T2, '20')], 'b1') // B lags and never advances
    read(A, 10_000, [agent(T1, '10', { parentSpanId: undefined })], 'a1')
    clock.t += 59_999
    expect(assembler.takeReady()).toEqual([])
    clock.t += 1
    expect(assembler.takeReady()).toMatchObject([
      { traceId: T2, reason: 'age', incomplete: true },
      { traceId: T1, reason: 'age', incomplete: false },
    ])
  })

  it('keeps comparing record times a week apart (beyond what it keeps relative to one base)', () => {
    const { clock, assembler, read } = evented()
    const week = 7 * 24 * 3600 * 1000
    read(B, 1_000, [span(T2, '20', { parentSpanId: undefined })], 'b1')
    read(A, week + 1_000, [agent(T1, '10', { parentSpanId: undefined })], 'a1')
    clock.t += 2_000
    expect(assembler.takeReady()).toEqual([]) // B lags at 1,000: T2 needs 2,000, T1 a week more
    read(B, week + 2_000, [span(T3, '30')], 'b2')
    clock.t += 2_000
    expect(assembler.takeReady().map((t) => t.traceId)).toEqual([T2]) // the watermark is A's week + 1,000
    read(A, week + 3_000, [span(T4, '40')], 'a2')
    clock.t += 2_000
    expect(assembler.takeReady().map((t) => t.traceId)).toEqual([T1])
  })

  /**
   * An assembler reading partitions A and B under the backlog rule: `fetch.through` is when the
   * last fetch started (the read-through proof), `read` adds spans as read at a record time.
   */
  const backlogRead = () => {
    const watermark = new PartitionWatermark()
    const fetch: { through: number | undefined } = { through: undefined }
    const { clock, assembler } = setup({
      watermark: () => watermark.current(),
      backlogWatermark: () => watermark.backlog(),
      readThrough: () => fetch.through,
    })
    const read = (partition: number, at: number, spans: Span[], ref: string, toEnd = false) => {
      assembler.add(spans, ref, undefined, at)
      watermark.advance(partition, at, toEnd)
    }
    watermark.assign([A, B])
    fetch.through = clock.t // a fetch started as the reading began, before any span arrived
    return { watermark, fetch, clock, assembler, read }
  }

  it('in a backlog (every partition lagging), releases a trace the watermark passed without the clock, once a fetch followed its last span', () => {
    const { watermark, fetch, clock, assembler, read } = backlogRead()
    read(A, 9_000, [span(T3, '30', { parentSpanId: undefined })], 'a0')
    read(B, 9_000, [span(T4, '40', { parentSpanId: undefined })], 'b0')
    read(A, 10_000, [agent(T1, '10', { parentSpanId: undefined })], 'a1')
    read(B, 10_500, [span(T1, '11', { parentSpanId: '10' })], 'b1')
    read(A, 11_600, [span(T2, '20', { parentSpanId: undefined })], 'a2')
    read(B, 11_600, [span(T2, '21')], 'b2')
    expect(watermark.backlog()).toBe(11_600)
    clock.t += 10 // far less than the quiet period (1,000 ms)
    // No fetch started since T1's last span arrived: a span of it may wait unread.
    expect(assembler.takeReady()).toEqual([])
    fetch.through = clock.t
    clock.t += 10
    // The watermark (11,600) passed T1's latest record (10,500) by settleMs, not T2's (11,600);
    // T3 and T4 were read before every partition was known to lag: the clock settles them.
    const ready = assembler.takeReady()
    expect(ready.map((t) => t.traceId)).toEqual([T1])
    expect(ready[0]).toMatchObject({ incomplete: false, reason: 'settled', recordRefs: ['a1', 'b1'] })
    // B read to its end: no backlog any more, the clock's quiet period applies again.
    read(B, 13_000, [span(T4, '41')], 'b3', true)
    read(A, 13_000, [span(T3, '31')], 'a3')
    fetch.through = clock.t
    clock.t += 10
    expect(watermark.backlog()).toBeUndefined()
    expect(assembler.takeReady()).toEqual([])
    clock.t += 1_000
    fetch.through = clock.t
    // T2 (11,600) is passed by A's 13,000 and quiet on the clock; T3 and T4 (13,000) wait.
    expect(assembler.takeReady().map((t) => t.traceId)).toEqual([T2])
    expect(assembler.stats().lateSpans).toBe(0)
  })

  it('keeps nothing of a trace the backlog watermark released, though its clock quiet period is not over', async () => {
    const { fetch, clock, assembler, read } = backlogRead()
    read(A, 9_000, [span(T3, '30', { parentSpanId: undefined })], 'a0') // now every partition is known to lag
    read(B, 9_000, [span(T4, '40', { parentSpanId: undefined })], 'b0')
    const spansOfT1 = (() => {
      const spans = [agent(T1, '10', { parentSpanId: undefined }), span(T1, '11', { parentSpanId: '10' })]
      read(A, 10_000, spans.slice(0, 1), 'a1')
      read(B, 10_500, spans.slice(1), 'b1')
      return spans.map((s) => new WeakRef(s))
    })()
    read(A, 11_600, [span(T2, '20', { parentSpanId: undefined })], 'a2')
    read(B, 11_600, [span(T2, '21')], 'b2')
    fetch.through = clock.t + 10
    clock.t += 20 // far less than the quiet period (1,000 ms): T1 is still in the clock's queue
    const ready = assembler.takeReady()
    expect(ready.map((t) => t.traceId)).toEqual([T1])
    expect(ready[0]!.spans.map((s) => s.spanId)).toEqual(['10', '11'])
    ready.length = 0 // scored and delivered: the pipeline keeps nothing of it either
    await new Promise((r) => setImmediate(r)) // weak refs made in a job hold until it ends
    v8.setFlagsFromString('--expose-gc')
    ;(runInNewContext('gc') as () => void)()
    expect(spansOfT1.map((ref) => ref.deref() === undefined)).toEqual([true, true])
    expect(assembler.stats()).toMatchObject({ openTraces: 3, bufferedSpans: 4 }) // T2, T3, T4 wait
  })

  it('waits again for a trace that got a later span while it waited for the watermark', () => {
    const { clock, assembler, read } = evented()
    read(B, 1_000, [span(T2, '20')], 'b1')
    read(A, 10_000, [agent(T1, '10', { parentSpanId: undefined })], 'a1')
    clock.t += 2_000
    expect(assembler.takeReady()).toEqual([]) // T1 waits for the watermark
    read(A, 20_000, [span(T1, '11', { parentSpanId: '10' })], 'a2')
    read(B, 12_000, [span(T2, '21')], 'b2')
    clock.t += 2_000
    // The watermark (12,000) passed T1's first record, not its latest (20,000).
    expect(assembler.takeReady()).toEqual([])
    read(B, 21_000, [span(T2, '22')], 'b3')
    read(A, 22_000, [span(T3, '30')], 'a3')
    clock.t += 2_000
    const ready = assembler.takeReady()
    expect(ready.map((t) => t.traceId)).toEqual([T1])
    expect(ready[0]!.spans.map((s) => s.spanId)).toEqual(['10', '11'])
  })
})
