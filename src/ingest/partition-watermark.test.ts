import { describe, expect, it } from 'vitest'
import { PartitionWatermark } from './partition-watermark.ts'

describe('PartitionWatermark', () => {
  it('is the lowest latest record time of the partitions that lag', () => {
    const watermark = new PartitionWatermark()
    expect(watermark.current()).toBeUndefined()
    watermark.advance(0, 5_000, false)
    watermark.advance(1, 2_000, false)
    watermark.advance(2, 9_000, false)
    expect(watermark.current()).toBe(2_000)
    expect(watermark.laggards()).toEqual([1])
    // Record times going back (another producer's clock) do not move a partition back.
    watermark.advance(1, 1_000, false)
    expect(watermark.current()).toBe(2_000)
    watermark.advance(1, 7_000, false)
    expect(watermark.current()).toBe(5_000)
  })

  it('leaves out idle partitions (read to their end) and partitions without times; all idle: none', () => {
    const watermark = new PartitionWatermark()
    watermark.advance(0, 1_000, true)
    watermark.advance(1, undefined, false)
    watermark.advance(2, 8_000, false)
    expect(watermark.current()).toBe(8_000)
    watermark.advance(2, 9_000, true)
    expect(watermark.current()).toBeUndefined()
    expect(watermark.laggards()).toEqual([])
    // An idle partition that gets records again and lags holds the watermark again.
    watermark.advance(0, 3_000, false)
    expect(watermark.current()).toBe(3_000)
  })

  it('forgets partitions no longer assigned', () => {
    const watermark = new PartitionWatermark()
    watermark.advance(0, 1_000, false)
    watermark.advance(1, 4_000, false)
    watermark.assign([1, 2])
    expect(watermark.current()).toBe(4_000)
  })

  it('names the partitions read past the watermark by more than a window, letting held ones go at half of it', () => {
    const watermark = new PartitionWatermark()
    const none = new Set<number>()
    expect(watermark.ahead(1_000, none)).toEqual([]) // no watermark: live traffic holds nothing
    watermark.advance(0, 10_000, false) // the laggard: the watermark
    watermark.advance(1, 11_001, false)
    watermark.advance(2, 10_900, false)
    watermark.advance(3, 50_000, true) // read to its end, but far ahead: its next records would wait too
    expect(watermark.ahead(1_000, none)).toEqual([1, 3])
    const held = new Set([1, 3])
    watermark.advance(0, 10_400, false)
    expect(watermark.ahead(1_000, held)).toEqual([1, 3]) // 601 ms ahead: more than half the window
    watermark.advance(0, 10_600, false)
    expect(watermark.ahead(1_000, held)).toEqual([3]) // 401 ms: let go
    // The laggard read to its end, far ahead now: partition 2 holds the watermark (10,900).
    watermark.advance(0, 60_000, true)
    expect(watermark.ahead(1_000, new Set([3]))).toEqual([0, 3])
    watermark.advance(1, 60_000, true)
    watermark.advance(2, 60_000, true)
    expect(watermark.ahead(1_000, held)).toEqual([]) // all read to their end
  })
})
