import { describe, expect, it } from 'vitest'
import type { SpanSourceStats } from '../ingest/span-source.ts'
import { createMetrics } from './metrics.ts'
import { sourceMetricsUpdater } from './source-metrics.ts'

const NO_LATE = { settled: 0, age: 0, cap: 0, flush: 0 }
const stats = (counts: Partial<SpanSourceStats>) =>
  ({ bufferedSpans: 0, heldPartitions: 0, lateSpansByRelease: NO_LATE, ...counts }) as SpanSourceStats

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

  it('counts late spans by what released their trace', async () => {
    const metrics = createMetrics()
    let current = stats({})
    const update = sourceMetricsUpdater(metrics, () => current)
    current = stats({ lateSpansByRelease: { ...NO_LATE, settled: 1, age: 3 } })
    update()
    current = stats({ lateSpansByRelease: { ...NO_LATE, settled: 1, age: 5 } })
    update()
    const values = (await metrics.lateSpans.get()).values.map((v) => [v.labels.released_by, v.value])
    expect(Object.fromEntries(values)).toEqual({ settled: 1, age: 5 })
  })

  it('shows the partitions held back by watermark alignment', async () => {
    const metrics = createMetrics()
    let current = stats({ heldPartitions: 3 })
    const update = sourceMetricsUpdater(metrics, () => current)
    update()
    expect((await metrics.heldPartitions.get()).values[0]?.value).toBe(3)
    current = stats({ heldPartitions: 0 })
    update()
    expect((await metrics.heldPartitions.get()).values[0]?.value).toBe(0)
  })
})
