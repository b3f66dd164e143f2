import { describe, expect, it } from 'vitest'
import { MessageCache } from './message-cache.ts'

describe('MessageCache', () => {
  it('returns a value only for exactly the bytes it was decoded from', () => {
    const cache = new MessageCache<string>(0, 64) // one slot: every message collides
    const a = Uint8Array.from([9, 1, 2, 3, 4, 5, 9])
    const b = Uint8Array.from([1, 2, 3, 4, 6])
    const slot = cache.slot(a, 1, 6)
    expect(cache.get(slot, a, 1, 6)).toBeUndefined()
    cache.set(slot, a, 1, 6, 'A')
    expect(cache.get(cache.slot(a, 1, 6), a, 1, 6)).toBe('A')
    expect(cache.get(cache.slot(b, 0, 5), b, 0, 5)).toBeUndefined()
    expect(cache.get(cache.slot(a, 1, 5), a, 1, 5)).toBeUndefined()
    a[3] = 7 // the cache holds a copy of the bytes, not a view
    expect(cache.get(cache.slot(a, 1, 6), a, 1, 6)).toBeUndefined()
  })

  it('copies the bytes of a Buffer too (whose slice is a view): reused memory never matches', () => {
    const cache = new MessageCache<string>(0, 64)
    const buf = Buffer.from([1, 2, 3, 4])
    cache.set(cache.slot(buf, 0, 4), buf, 0, 4, 'old')
    buf.set([5, 6, 7, 8])
    expect(cache.get(cache.slot(buf, 0, 4), buf, 0, 4)).toBeUndefined()
  })
})
