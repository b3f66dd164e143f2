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
})
