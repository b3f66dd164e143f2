/**
 * A fixed-size, direct-mapped cache from short UTF-8 byte sequences to the strings they decode to.
 * Telemetry repeats the same keys and many values (`gen_ai.operation.name`, `chat`, model names) in
 * every span; looking them up costs a hash and a compare, less than decoding a new string, and
 * returns one shared string instance. A colliding entry simply replaces the older one.
 */
export class StringCache {
  /** Longest byte sequence the cache holds. */
  readonly maxBytes: number
  private readonly mask: number
  private readonly strings: string[]
  private readonly lengths: Int32Array
  private readonly bytes: Uint8Array

  constructor(slotBits: number, maxBytes: number) {
    const slots = 1 << slotBits
    this.maxBytes = maxBytes
    this.mask = slots - 1
    this.strings = new Array<string>(slots).fill('')
    this.lengths = new Int32Array(slots).fill(-1)
    this.bytes = new Uint8Array(slots * maxBytes)
  }

  /**
   * Looks up `buf[start..end)` (1 to {@link maxBytes} bytes long). Returns the slot (≥ 0) on a hit,
   * or `-1 - slot` on a miss, the slot to {@link store} the decoded string in.
   */
  find(buf: Uint8Array, start: number, end: number): number {
    const len = end - start
    // Hash the length and a sample of bytes (start, middle, end: where keys like
    // gen_ai.request.model / gen_ai.response.model differ); the compare below checks them all.
    const last = end - 1
    const mid = start + (len >>> 1)
    let h = Math.imul(0x811c9dc5 ^ len, 0x01000193)
    h = Math.imul(h ^ buf[start]!, 0x01000193)
    h = Math.imul(h ^ buf[mid]!, 0x01000193)
    h = Math.imul(h ^ buf[last]!, 0x01000193)
    if (len > 4) {
      h = Math.imul(h ^ buf[mid - 1]!, 0x01000193)
      h = Math.imul(h ^ buf[last - 1]!, 0x01000193)
      h = Math.imul(h ^ buf[last - 2]!, 0x01000193)
      h = Math.imul(h ^ buf[last - 3]!, 0x01000193)
    }
    const slot = (h ^ (h >>> 15)) & this.mask
    if (this.lengths[slot] === len) {
      const bytes = this.bytes
      const base = slot * this.maxBytes - start
      let i = start
      while (i < end && bytes[base + i] === buf[i]) i++
      if (i === end) return slot
    }
    return -1 - slot
  }

  /** The string in a slot that {@link find} reported as a hit. */
  get(slot: number): string {
    return this.strings[slot]!
  }

  /** Remembers `value` as the decoding of `buf[start..end)` in `slot`. */
  store(slot: number, buf: Uint8Array, start: number, end: number, value: string): void {
    this.strings[slot] = value
    this.lengths[slot] = end - start
    const bytes = this.bytes
    const base = slot * this.maxBytes - start
    for (let i = start; i < end; i++) bytes[base + i] = buf[i]!
  }
}
