const TWO_32 = 4294967296
const BILLION = 1e9
/** 2^48 = 281474 * 1e9 + 976710656 and 2^32 = 4 * 1e9 + 294967296, used to split into base-1e9 limbs. */
const TWO_48_HIGH = 281474
const TWO_48_LOW = 976710656
const TWO_32_HIGH = 4
const TWO_32_LOW = 294967296
/** The upper limb of the last conversion and its text. */
let lastHigh = -1
let lastHighText = ''

/**
 * Decimal string of the unsigned 64-bit integer `hi * 2^32 + lo` (both halves uint32), exact,
 * without BigInt: the value is split into two base-1e9 limbs with only exact double arithmetic.
 */
export function uint64ToDecimal(lo: number, hi: number): string {
  if (hi < 0x200000) return String(hi * TWO_32 + lo)
  const hiTop = hi >>> 16
  const hiBottom = hi & 0xffff
  // Every product stays below 2^47, so the sums are exact.
  let low = hiTop * TWO_48_LOW + hiBottom * TWO_32_LOW + lo
  const carry = Math.floor(low / BILLION)
  low -= carry * BILLION
  const high = hiTop * TWO_48_HIGH + hiBottom * TWO_32_HIGH + carry
  // Nanosecond times of one batch mostly share their seconds: reuse that part's text.
  if (high !== lastHigh) {
    lastHigh = high
    lastHighText = String(high)
  }
  // 1e9 + low has ten digits; dropping the leading 1 leaves low zero-padded to nine.
  return lastHighText + String(BILLION + low).slice(1)
}

/**
 * The signed 64-bit integer with two's-complement halves `lo`/`hi` (uint32): a number when it is a
 * safe integer, else its exact decimal string.
 */
export function int64ToValue(lo: number, hi: number): number | string {
  if (hi < 0x200000) return hi * TWO_32 + lo
  if (hi >= 0x80000000) {
    // Negate: magnitude = ~value + 1.
    let mLo = ~lo >>> 0
    let mHi = ~hi >>> 0
    mLo = (mLo + 1) >>> 0
    if (mLo === 0) mHi = (mHi + 1) >>> 0
    if (mHi < 0x200000) return -(mHi * TWO_32 + mLo)
    return '-' + uint64ToDecimal(mLo, mHi)
  }
  return uint64ToDecimal(lo, hi)
}
