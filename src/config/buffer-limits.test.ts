import { describe, expect, it } from 'vitest'
import { defaultMaxBufferedBytes, memoryLimitOf, processMemoryLimits, spanCapFor } from './buffer-limits.ts'

const GiB = 1024 ** 3

describe('buffer limits', () => {
  it('takes a quarter of the lowest of the heap limit, the cgroup limit and the machine memory', () => {
    expect(defaultMaxBufferedBytes({ heapLimit: 4 * GiB, total: 16 * GiB })).toBe(GiB)
    expect(defaultMaxBufferedBytes({ heapLimit: 4 * GiB, constrained: 2 * GiB, total: 16 * GiB })).toBe(
      GiB / 2,
    )
    // An unconstrained process reports 2^64; a container smaller than the heap limit wins.
    expect(memoryLimitOf({ heapLimit: 4 * GiB, constrained: 2 ** 64, total: 8 * GiB })).toBe(4 * GiB)
    expect(memoryLimitOf({ heapLimit: 4 * GiB, constrained: 512 * 1024 ** 2, total: 8 * GiB })).toBe(
      512 * 1024 ** 2,
    )
  })

  it('never defaults below 32 MiB', () => {
    expect(defaultMaxBufferedBytes({ heapLimit: 64 * 1024 ** 2, total: 0 })).toBe(32 * 1024 ** 2)
    expect(defaultMaxBufferedBytes({ heapLimit: 0, total: 0 })).toBe(32 * 1024 ** 2)
  })

  it("reads this process's limits", () => {
    const limits = processMemoryLimits()
    expect(limits.heapLimit).toBeGreaterThan(0)
    expect(limits.total).toBeGreaterThan(0)
    expect(defaultMaxBufferedBytes()).toBe(defaultMaxBufferedBytes(limits))
  })

  it('derives the span cap from the byte cap at 256 bytes a span', () => {
    expect(spanCapFor(GiB)).toBe(4 * 1024 * 1024)
    expect(spanCapFor(10)).toBe(1)
  })
})
