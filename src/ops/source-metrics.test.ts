import { describe, expect, it } from 'vitest'
import type { SpanSourceStats } from '../ingest/span-source.ts'
import { createMetrics } from './metrics.ts'
import { sourceMetricsUpdater } from './source-metrics.ts'

const stats = (counts: Partial<SpanSourceStats>) => ({ bufferedSpans: 0, ...counts }) as SpanSourceStats

describe('sourceMetricsUpdater', () => {
  it('counts traces released incomplete as complete="false" and the others as complete="true"', async () => {
    const metrics = createMetrics()
    let current = stats({ tracesReleased: 0, tracesIncomplete: 0 })
    const update = sourceMetricsUpdater(metrics, () => current)
    current = stats({ tracesReleased: 5, tracesIncomplete: 2 })
    update()
    current = stats({ tracesReleased: 7, tracesIncomplete: 2 })
    update()
    const values = (await metrics.traces.get()).values.map((v) => [v.labels.complete, v.value])
    expect(Object.fromEntries(values)).toEqual({ true: 5, false: 2 })
  })
})
