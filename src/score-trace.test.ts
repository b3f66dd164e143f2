import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { listFixtures } from '../test/fixtures/index.ts'
import { resolveConfig } from './config/define-config.ts'
import { decodeOtlpTraces } from './ingest/decode/index.ts'
import { createMetrics } from './ops/metrics.ts'
import { scoreTrace } from './score-trace.ts'

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

  it('scores only the released agent spans, and flags runs of an incomplete trace', async () => {
    const all = (await scoreTrace(spans, { scorers })).runs
    const inner = all.find((r) => r.parentRunSpanId)!
    const { runs, records } = await scoreTrace(spans, {
      scorers,
      agentSpanIds: [inner.spanId],
      incomplete: true,
    })
    expect(runs.map((r) => r.spanId)).toEqual([inner.spanId])
    expect(runs[0]!.incomplete).toBe(true)
    expect(records).toHaveLength(1)
    expect(records[0]!.incomplete).toBe(true)
  })
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
