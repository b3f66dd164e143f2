import { describe, expect, it } from 'vitest'
import { HEAP_GROWING_PERCENT, heapTuningFor, NEW_SPACE_CAP_BYTES, tuneHeap } from './heap-tuning.ts'

const MiB = 1024 * 1024

describe('heap tuning of the service', () => {
  it('caps the old generation growth and the new generation when Node was given no such flag', () => {
    expect(heapTuningFor([], undefined)).toEqual({
      growingPercent: HEAP_GROWING_PERCENT,
      newSpaceCapBytes: NEW_SPACE_CAP_BYTES,
    })
    expect(heapTuningFor(['--enable-source-maps'], '--max-old-space-size=512')).toEqual({
      growingPercent: 100,
      newSpaceCapBytes: 32 * MiB,
    })
  })

  it('leaves alone what the user gave Node, on its command line or in NODE_OPTIONS, with - or _', () => {
    expect(heapTuningFor(['--heap-growing-percent=30'], undefined)).toEqual({ newSpaceCapBytes: 32 * MiB })
    expect(heapTuningFor(['--heap_growing_percent=30'], undefined)).toEqual({ newSpaceCapBytes: 32 * MiB })
    // Node takes only some V8 flags from NODE_OPTIONS (--max-semi-space-size among them).
    expect(heapTuningFor([], ' --max-semi-space-size=64 ')).toEqual({ growingPercent: 100 })
    for (const flag of ['--max-semi-space-size=64', '--semi-space-growth-factor=4', '--max-heap-size=900'])
      expect(heapTuningFor([flag], undefined)).toEqual({ growingPercent: 100 })
    expect(heapTuningFor(['--max_semi_space_size', '8', '--heap-growing-percent', '50'], undefined)).toEqual(
      {},
    )
  })

  it('stops the new generation growing while it is at its cap, and lets it grow again below it', async () => {
    const flags: string[] = []
    let newSpace = 8 * MiB
    const stop = tuneHeap(
      { growingPercent: 100, newSpaceCapBytes: 32 * MiB },
      (f) => flags.push(f),
      () => newSpace,
    )
    expect(flags).toEqual(['--heap-growing-percent=100', '--semi-space-growth-factor=2'])
    // Young collections, seen by the observer the tuning installed (its entries come a moment later).
    const collect = async () => {
      for (let i = 0; i < 200; i++) new Array(100_000).fill(i)
      await new Promise((r) => setTimeout(r, 20))
    }
    const collectUntil = async (flag: string) => {
      for (let i = 0; i < 100 && flags.at(-1) !== flag; i++) await collect()
    }
    newSpace = 32 * MiB
    await collectUntil('--semi-space-growth-factor=1')
    expect(flags.at(-1)).toBe('--semi-space-growth-factor=1')
    const length = flags.length
    await collect()
    expect(flags.length).toBe(length) // set once per change, not per collection
    newSpace = 2 * MiB // V8 shrank it (allocation slowed down)
    await collectUntil('--semi-space-growth-factor=2')
    expect(flags.at(-1)).toBe('--semi-space-growth-factor=2')
    stop()
    newSpace = 64 * MiB
    await collect()
    expect(flags.at(-1)).toBe('--semi-space-growth-factor=2')
  })

  it('changes nothing it was not asked to', () => {
    const flags: string[] = []
    tuneHeap(
      {},
      (f) => flags.push(f),
      () => 0,
    )()
    expect(flags).toEqual([])
  })
})
