import { describe, expect, it } from 'vitest'
import { captureLogs } from '../ops/testing/capture-logs.ts'
import type { ConsumerPort } from './consumer-port.ts'
import { createReadProgress } from './read-progress.ts'

/** A consumer port that only records what it is told to hold back. */
function recordingPort(options: { reportsReadThrough?: boolean } = {}) {
  const holds: number[][] = []
  const port = {
    reportsReadThrough: options.reportsReadThrough,
    holdBack: (partitions: readonly number[]) => void holds.push([...partitions]),
  } as unknown as ConsumerPort
  return { port, holds }
}

/** A read progress over a recording port, on a clock the test moves, logging into `logs`. */
function setup(
  options: Partial<Parameters<typeof createReadProgress>[0]> & { reportsReadThrough?: boolean } = {},
) {
  const clock = { t: 0 }
  const full = { now: false }
  const { port, holds } = recordingPort({ reportsReadThrough: options.reportsReadThrough })
  const logs = captureLogs()
  const progress = createReadProgress({
    consumer: port,
    now: () => clock.t,
    logger: logs.logger,
    bufferFull: () => full.now,
    ...options,
  })
  return { clock, full, holds, logs, progress }
}

describe('createReadProgress', () => {
  it('holds back partitions read past the watermark by the window, lets them go when it catches up, and logs each once', () => {
    const { holds, logs, progress } = setup({ settleMs: 100 }) // window 1,000 ms
    const { watermark } = progress
    watermark.advance(0, 5_000, false)
    watermark.advance(1, 5_500, false)
    progress.align()
    expect(holds).toEqual([]) // within the window: nothing to do
    watermark.advance(1, 6_100, false)
    progress.align()
    progress.align()
    expect(holds).toEqual([[1]])
    expect(progress.heldPartitions()).toBe(1)
    watermark.advance(0, 5_500, false)
    progress.align()
    expect(holds).toEqual([[1]]) // 600 ms ahead: still held (let go within half the window)
    watermark.advance(0, 5_700, false)
    progress.align()
    expect(holds).toEqual([[1], []])
    expect(logs.lines.map((l) => l.msg)).toEqual([
      expect.stringContaining('held back until it catches up'),
      'every partition caught up: none held back',
    ])
  })

  it('holds nothing back while the slowest partition does not advance', () => {
    const { clock, holds, logs, progress } = setup({ alignWindowMs: 1_000, stuckAfterMs: 30_000 })
    progress.watermark.advance(0, 1_000, false) // it stopped yielding batches here
    progress.watermark.advance(1, 9_000, false)
    progress.align()
    expect(holds).toEqual([[1]])
    clock.t = 30_000
    progress.align()
    expect(holds).toEqual([[1]])
    clock.t = 30_001
    progress.align()
    expect(holds).toEqual([[1], []])
    expect(logs.lines.at(-1)?.msg).toContain('did not advance')
    progress.watermark.advance(0, 1_500, false) // it moves again: alignment again
    progress.align()
    expect(holds).toEqual([[1], [], [1]])
  })

  it('counts nothing read before the consumer started, then only what its fetches prove', () => {
    const { clock, full, progress } = setup({ reportsReadThrough: true })
    clock.t = 1_000
    expect(progress.readThroughNow()).toBeUndefined()
    progress.started()
    expect(progress.readThroughNow()).toBe(1_000)
    progress.readThrough(1_500)
    progress.readThrough(1_200) // a broker further behind after a rejoin: never earlier
    expect(progress.readThroughNow()).toBe(1_500)
    full.now = true // a full buffer holds reading paused: the clock alone
    expect(progress.readThroughNow()).toBeUndefined()
    // A port that cannot tell leaves it unknown: the clock alone.
    const blind = setup().progress
    blind.started()
    expect(blind.readThroughNow()).toBeUndefined()
  })
})
