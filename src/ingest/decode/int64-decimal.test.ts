import { describe, expect, it } from 'vitest'
import { int64ToValue, uint64ToDecimal } from './int64-decimal.ts'
import { rng } from './testing/generated-spans.ts'

const halves = (v: bigint): [number, number] => [Number(v & 0xffffffffn), Number((v >> 32n) & 0xffffffffn)]

describe('uint64ToDecimal / int64ToValue', () => {
  const edges = [
    0n,
    1n,
    2n ** 32n - 1n,
    2n ** 32n,
    2n ** 53n - 1n,
    2n ** 53n,
    2n ** 53n + 1n,
    10n ** 18n,
    10n ** 18n - 1n,
    1747872000123456789n,
    2n ** 63n - 1n,
    2n ** 63n,
    2n ** 64n - 1n,
  ]

  it('matches BigInt for edge values and 100k random ones', () => {
    const random = rng(31)
    const values = [...edges]
    for (let i = 0; i < 100_000; i++) {
      const hi = BigInt(Math.floor(random() * 2 ** 32))
      const lo = BigInt(Math.floor(random() * 2 ** 32))
      values.push((hi << 32n) | lo)
    }
    for (const v of values) {
      const [lo, hi] = halves(v)
      expect(uint64ToDecimal(lo, hi)).toBe(v.toString())
      const signed = BigInt.asIntN(64, v)
      const n = Number(signed)
      expect(int64ToValue(lo, hi)).toBe(Number.isSafeInteger(n) ? n : signed.toString())
    }
  })

  it('pads the low limb with zeros (values like 10^18 + 5)', () => {
    const [lo, hi] = halves(10n ** 18n + 5n)
    expect(uint64ToDecimal(lo, hi)).toBe('1000000000000000005')
  })
})
