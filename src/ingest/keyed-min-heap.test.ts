import { describe, expect, it } from 'vitest'
import { KeyedMinHeap } from './keyed-min-heap.ts'

describe('KeyedMinHeap', () => {
  it('pops items lowest key first, whatever the order they came in', () => {
    const heap = new KeyedMinHeap<string>()
    const keys = [5, 3, 9, 1, 7, 3, 8, 2, 6, 4, 0]
    for (const key of keys) heap.push(`k${key}`, key)
    expect(heap.size).toBe(keys.length)
    expect(heap.peekKey()).toBe(0)
    const out: number[] = []
    for (let item = heap.pop(); item !== undefined; item = heap.pop()) out.push(Number(item.slice(1)))
    expect(out).toEqual([...keys].sort((a, b) => a - b))
    expect(heap.peekKey()).toBeUndefined()
  })

  it('keeps only the entries retained, still in key order', () => {
    const heap = new KeyedMinHeap<number>()
    for (let i = 0; i < 100; i++) heap.push(i, (i * 37) % 101)
    heap.retain((item) => item % 3 === 0)
    const out: number[] = []
    while (heap.size > 0) {
      const key = heap.peekKey()!
      const item = heap.pop()!
      expect((item * 37) % 101).toBe(key)
      out.push(key)
    }
    expect(out).toHaveLength(34)
    expect(out).toEqual([...out].sort((a, b) => a - b))
  })
})
