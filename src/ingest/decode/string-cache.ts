const FNV_PRIME = 0x01000193

/** FNV-1a over the length and up to 7 bytes sampled from the start, middle and end. */
function sampledHash(buf: Uint8Array, start: number, end: number): number {
  const len = end - start
  const last = end - 1
  const mid = start + (len >>> 1)
  let h = Math.imul(0x811c9dc5 ^ len, FNV_PRIME)
  h = Math.imul(h ^ buf[start]!, FNV_PRIME)
  h = Math.imul(h ^ buf[mid]!, FNV_PRIME)
  h = Math.imul(h ^ buf[last]!, FNV_PRIME)
  if (len > 4) {
    h = Math.imul(h ^ buf[mid - 1]!, FNV_PRIME)
    h = Math.imul(h ^ buf[last - 1]!, FNV_PRIME)
    h = Math.imul(h ^ buf[last - 2]!, FNV_PRIME)
    h = Math.imul(h ^ buf[last - 3]!, FNV_PRIME)
  }
  return h
}

/**
 * A fixed-size cache from short UTF-8 byte sequences to the strings they decode to. Telemetry
 * repeats the same keys and many values (`gen_ai.operation.name`, `chat`, model names) in every
 * span; a lookup costs a hash and a compare, less than decoding a new string, and returns one
 * shared string instance.
 *
 * Each sequence has two candidate slots: one from a cheap hash of a few sampled bytes (start,
 * middle, end), one from a hash of all bytes. Lookups try the cheap slot first. A new entry goes
 * to its cheap slot unless that holds a different sequence of the same cheap hash that is still in
 * use, in which case it goes to its full-hash slot: so keys that differ only inside
 * (`llm.input_messages.3.message.role` / `.4.`) do not keep evicting each other.
 */
export class StringCache {
  /** Longest byte sequence the cache holds. */
  readonly maxBytes: number
  private readonly mask: number
  private readonly strings: string[]
  private readonly lengths: Int32Array
  /** The cheap hash of the entry in each slot, to tell a same-hash collision from a stranger. */
  private readonly sampled: Int32Array
  private readonly bytes: Uint8Array

  constructor(slotBits: number, maxBytes: number) {
    const slots = 1 << slotBits
    this.maxBytes = maxBytes
    this.mask = slots - 1
    this.strings = new Array<string>(slots).fill('')
    this.lengths = new Int32Array(slots).fill(-1)
    this.sampled = new Int32Array(slots)
    this.bytes = new Uint8Array(slots * maxBytes)
  }

  /**
   * Looks up `buf[start..end)` (1 to {@link maxBytes} bytes long). Returns the slot (≥ 0) on a hit,
   * or `-1 - slot` on a miss, the slot to {@link store} the decoded string in.
   */
  find(buf: Uint8Array, start: number, end: number): number {
    const len = end - start
    const h = sampledHash(buf, start, end)
    const slot = (h ^ (h >>> 15)) & this.mask
    if (this.lengths[slot] === len && this.equals(slot, buf, start, end)) return slot
    if (this.sampled[slot] !== h || this.lengths[slot] !== len) return -1 - slot
    // Same cheap hash, different bytes: the full-hash slot.
    let f = h
    let i = start
    for (; i + 1 < end; i += 2) f = Math.imul(f ^ (buf[i]! | (buf[i + 1]! << 8)), FNV_PRIME)
    if (i < end) f = Math.imul(f ^ buf[i]!, FNV_PRIME)
    const other = (f ^ (f >>> 15)) & this.mask
    if (this.lengths[other] === len && this.equals(other, buf, start, end)) return other
    return -1 - other
  }

  private equals(slot: number, buf: Uint8Array, start: number, end: number): boolean {
    const bytes = this.bytes
    const base = slot * this.maxBytes - start
    let i = start
    while (i < end && bytes[base + i] === buf[i]) i++
    return i === end
  }

  /** The string in a slot that {@link find} reported as a hit. */
  get(slot: number): string {
    return this.strings[slot]!
  }

  /** Remembers `value` as the decoding of `buf[start..end)` in the `slot` that {@link find} returned. */
  store(slot: number, buf: Uint8Array, start: number, end: number, value: string): void {
    const len = end - start
    // Recomputed to record it: stores are rare next to lookups.
    const h = sampledHash(buf, start, end)
    this.sampled[slot] = h
    this.strings[slot] = value
    this.lengths[slot] = len
    const bytes = this.bytes
    const base = slot * this.maxBytes - start
    for (let i = start; i < end; i++) bytes[base + i] = buf[i]!
  }
}
