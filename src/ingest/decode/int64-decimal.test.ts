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

  /**
   * Where the conversion can go wrong, systematically: every power of two and of ten (±1), the
   * 2^53 switch to limbs, carries across the base-1e9 limb boundary, and both ends of the sign.
   */
  function structuredEdges(): bigint[] {
    const values = [...edges]
    const around = (v: bigint) => values.push(v - 1n, v, v + 1n)
    for (let k = 0n; k <= 64n; k++) around(2n ** k)
    for (let k = 0n; k <= 19n; k++) around(10n ** k)
    for (let j = 0n; j < 64n; j++) {
      around(2n ** 53n + j * 10n ** 9n) // limbs split at 1e9 just above the exact-double range
      around((2n ** 63n / 10n ** 9n - j) * 10n ** 9n) // the same below the sign bit
      around(2n ** 64n - 2n ** j) // -2^j as a signed value
    }
    return values.map((v) => BigInt.asUintN(64, v))
  }

  /** Uniform 64-bit values, uniform values below 2^53, and each one's successor (same upper limb: the cached text). */
  function randomValues(count: number): bigint[] {
    const random = rng(31)
    const u32 = () => BigInt(Math.floor(random() * 2 ** 32))
    const values: bigint[] = []
    for (let i = 0; i < count; i++) {
      const wide = (u32() << 32n) | u32()
      const safe = BigInt(Math.floor(random() * 2 ** 53))
      values.push(wide, BigInt.asUintN(64, wide + 1n), safe, safe + 1n)
    }
    return values
  }

  // One assertion over all values (a mismatch list), not one per value: 10^5 expect calls alone
  // took longer than the 5 s test timeout on a loaded 2-core machine.
  it('matches BigInt for every structured edge value and 80,000 seeded random ones', () => {
    const mismatches: string[] = []
    for (const v of [...structuredEdges(), ...randomValues(20_000)]) {
      const [lo, hi] = halves(v)
      const unsigned = uint64ToDecimal(lo, hi)
      if (unsigned !== v.toString()) mismatches.push(`uint64ToDecimal(${v}) = ${unsigned}`)
      const signed = BigInt.asIntN(64, v)
      const n = Number(signed)
      const expected = Number.isSafeInteger(n) ? n : signed.toString()
      const actual = int64ToValue(lo, hi)
      if (actual !== expected) mismatches.push(`int64ToValue(${signed}) = ${actual}`)
    }
    expect(mismatches).toEqual([])
  })

  it('the edge list reaches both paths and both signs', () => {
    const values = structuredEdges()
    expect(values.some((v) => v < 2n ** 53n)).toBe(true)
    expect(values.some((v) => v >= 2n ** 53n && v < 2n ** 63n)).toBe(true)
    expect(values.some((v) => BigInt.asIntN(64, v) < -(2n ** 53n))).toBe(true)
    expect(values).toContain(2n ** 64n - 1n)
  })

  it('pads the low limb with zeros (values like 10^18 + 5)', () => {
    const [lo, hi] = halves(10n ** 18n + 5n)
    expect(uint64ToDecimal(lo, hi)).toBe('1000000000000000005')
  })
})
