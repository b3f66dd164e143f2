import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { listFixtures } from '../test/fixtures/index.ts'
import { resolveConfig } from './config/define-config.ts'
import { loadTrafficSamples } from './demo/traffic.ts'
import { decodeOtlpTraces } from './ingest/decode/index.ts'
import { scanOtlpProto } from './ingest/decode/scan-proto.ts'
import { TraceAssembler } from './ingest/trace-assembler.ts'
import { createMetrics } from './ops/metrics.ts'
import { scoreTrace } from './score-trace.ts'
import { extractAgentRuns, isAgentRunSpan, isGenAiSpan } from './transform/index.ts'

const scorer = { id: 'count', run: async ({ output }: { output: unknown[] }) => ({ score: output.length }) }
const { scorers } = resolveConfig({ scorers: { count: { scorer } } }, {})
const nested = listFixtures(['ai-sdk-7-genai']).find((f) => f.scenario === 'nested-agents')!
const spans = decodeOtlpTraces(readFileSync(nested.protoPath), 'otlp_proto')

describe('scoreTrace', () => {
  it('scores every agent run of the trace, nested ones included', async () => {
    const { runs, records } = await scoreTrace(spans, { scorers })
    expect(runs.length).toBe(2)
    expect(records.map((r) => r.spanId).sort()).toEqual(runs.map((r) => r.spanId).sort())
  })

  it('skips the runs an earlier release scored, and flags runs of an incomplete trace', async () => {
    const all = (await scoreTrace(spans, { scorers })).runs
    const inner = all.find((r) => r.parentRunSpanId)!
    const outer = all.find((r) => r !== inner)!
    const { runs, records } = await scoreTrace(spans, {
      scorers,
      scoredRunSpanIds: [outer.spanId],
      incomplete: true,
    })
    expect(runs.map((r) => r.spanId)).toEqual([inner.spanId])
    expect(runs[0]!.incomplete).toBe(true)
    expect(records).toHaveLength(1)
    expect(records[0]!.incomplete).toBe(true)
  })

  // Decoded spans (OTLP/JSON's way in), and scanned records whose spans the assembler sees only
  // through their role views and the scan's marks (protobuf's way in, `tracescore run`'s).
  it.each(['decoded', 'scanned'] as const)(
    'scores every run of the recorded traffic once it went through the assembler (%s), whatever span heads it, runs of spans of no known vocabulary too',
    async (way) => {
      const traffic = loadTrafficSamples(new URL('../test/fixtures/data', import.meta.url).pathname)
      const clock = { t: 0 }
      const assembler = new TraceAssembler<number>({ isAgentRunSpan, isGenAiSpan, now: () => clock.t })
      const expected: string[] = []
      let generic = 0
      traffic.forEach((sample, i) => {
        const runs = extractAgentRuns(decodeOtlpTraces(sample.payload, 'otlp_proto'))
        expected.push(...runs.map((r) => `${r.traceId}/${r.spanId}`))
        generic += runs.filter((r) => r.convention === 'generic').length
        if (way === 'scanned') assembler.addBatch(scanOtlpProto(sample.payload), i)
        else assembler.add(decodeOtlpTraces(sample.payload, 'otlp_proto'), i)
      })
      clock.t += 10 * 60_000 // past settling and the maximum age: every trace is released
      const scored: string[] = []
      for (const trace of assembler.takeReady()) {
        if (!trace.hasGenAi) continue
        const { records } = await scoreTrace(trace.spans, {
          scorers,
          scoredRunSpanIds: trace.scoredAgentSpanIds,
        })
        scored.push(...records.map((r) => `${r.traceId}/${r.spanId}`))
      }
      expect(expected.length).toBeGreaterThan(150)
      expect(generic).toBeGreaterThan(20)
      expect(scored.sort()).toEqual(expected.sort())
    },
  )
})

describe('scoreTrace metrics', () => {
  it('times each scorer on its own, not all scorers of a run together', async () => {
    const clock = { ms: 0 }
    const gate = () => {
      let resolve: () => void = () => {}
      const promise = new Promise<void>((r) => {
        resolve = r
      })
      return { promise, resolve }
    }
    const fastDone = gate()
    const slowDone = gate()
    const waiting = (id: string, done: Promise<void>) => ({
      id,
      run: async () => {
        await done
        return { score: 1 }
      },
    })
    const config = resolveConfig(
      {
        scorers: {
          fast: { scorer: waiting('fast', fastDone.promise) },
          slow: { scorer: waiting('slow', slowDone.promise) },
        },
      },
      {},
    )
    const metrics = createMetrics()
    const scoring = scoreTrace(spans, { scorers: config.scorers, metrics, clock: () => clock.ms })
    clock.ms = 500
    fastDone.resolve()
    await new Promise((resolve) => setImmediate(resolve))
    clock.ms = 2_000
    slowDone.resolve()
    await scoring
    // Both runs of the trace (outer and nested agent) timed per scorer: 2 observations each.
    const { values } = await metrics.scoringSeconds.get()
    const of = (suffix: string) =>
      Object.fromEntries(
        values
          .filter((v) => v.metricName === `tracescore_scoring_duration_seconds_${suffix}`)
          .map((v) => [v.labels.scorer, v.value]),
      )
    expect(of('count')).toEqual({ fast: 2, slow: 2 })
    expect(of('sum')).toEqual({ fast: 1, slow: 4 })
  })
})
