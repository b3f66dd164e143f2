import { describe, expect, it } from 'vitest'
import { bufferHoldsReading, shouldPause } from './backpressure.ts'

const limits = { pauseAtBufferedSpans: 1_000, pauseAtBufferedBytes: 1_000_000, maxQueuedTraces: 100 }
const load = (bufferedSpans: number, bufferedBytes: number, queuedTraces = 0) => ({
  bufferedSpans,
  bufferedBytes,
  queuedTraces,
})

describe('shouldPause', () => {
  it('pauses when the buffer is full by its spans, by its bytes, or the queue is full', () => {
    expect(shouldPause(false, load(999, 999_999, 99), limits)).toBe(false)
    expect(shouldPause(false, load(1_000, 0), limits)).toBe(true)
    expect(shouldPause(false, load(10, 1_000_000), limits)).toBe(true)
    expect(shouldPause(false, load(10, 10, 100), limits)).toBe(true)
  })

  it('resumes only once all three fell below 80% of their limit', () => {
    expect(shouldPause(true, load(799, 800_000), limits)).toBe(true)
    expect(shouldPause(true, load(800, 10), limits)).toBe(true)
    expect(shouldPause(true, load(10, 10, 80), limits)).toBe(true)
    expect(shouldPause(true, load(799, 799_999, 79), limits)).toBe(false)
  })
})

describe('bufferHoldsReading', () => {
  it('is true while the buffer, not the queue, is above 80% of a limit', () => {
    expect(bufferHoldsReading(load(800, 0), limits)).toBe(true)
    expect(bufferHoldsReading(load(0, 800_000), limits)).toBe(true)
    expect(bufferHoldsReading(load(799, 799_999, 100), limits)).toBe(false)
  })
})
