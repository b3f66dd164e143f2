import { describe, expect, it } from 'vitest'
import { StringCache } from './string-cache.ts'
import { rng } from './testing/generated-spans.ts'

const decoder = new TextDecoder()

/** Reads through the cache as the protobuf reader does. */
function read(cache: StringCache, buf: Uint8Array, start: number, end: number): string {
  const slot = cache.find(buf, start, end)
  if (slot >= 0) return cache.get(slot)
  const value = decoder.decode(buf.subarray(start, end))
  cache.store(-1 - slot, buf, start, end, value)
  return value
}

describe('StringCache', () => {
  it('always returns the decoding of the exact bytes, under heavy collisions (4 slots)', () => {
    const random = rng(5)
    const cache = new StringCache(2, 8)
    const buf = new Uint8Array(64)
    let hits = 0
    for (let i = 0; i < 20_000; i++) {
      const len = Math.floor(random() * 9)
      const start = Math.floor(random() * 40)
      // Few distinct byte values, so equal and near-equal sequences are common.
      for (let k = start; k < start + len; k++) buf[k] = 0x61 + Math.floor(random() * 3)
      if (cache.find(buf, start, start + len) >= 0) hits++
      expect(read(cache, buf, start, start + len)).toBe(decoder.decode(buf.subarray(start, start + len)))
    }
    expect(hits).toBeGreaterThan(100)
  })

  it('returns the same string instance on a hit', () => {
    const cache = new StringCache(4, 16)
    const a = new TextEncoder().encode('xx gen_ai.system')
    const first = read(cache, a, 3, a.length)
    const slot = cache.find(a, 3, a.length)
    expect(slot).toBeGreaterThanOrEqual(0)
    expect(cache.get(slot)).toBe(first)
    expect(cache.find(new TextEncoder().encode('gen_ai.systen'), 0, 13)).toBeLessThan(0)
  })

  it('keeps keys that differ only in the middle (OpenInference indices) cached side by side', () => {
    const cache = new StringCache(10, 64)
    const keys = Array.from({ length: 10 }, (_, i) =>
      new TextEncoder().encode(`llm.input_messages.${i}.message.role`),
    )
    for (const key of keys) read(cache, key, 0, key.length)
    const hits = keys.filter((key) => cache.find(key, 0, key.length) >= 0).length
    expect(hits).toBe(10)
  })
})
