const FNV_PRIME = 0x01000193

/**
 * A small cache from the exact bytes of an encoded message to the value decoded from them. The
 * `Resource` of a service is the same bytes in every record it exports: decoding it once and
 * handing out the same object saves the work and, for spans buffered across records, the memory.
 */
export class MessageCache<T> {
  /** Longest message the cache holds. */
  readonly maxBytes: number
  private readonly mask: number
  private readonly entries: ({ bytes: Uint8Array; value: T } | undefined)[]

  constructor(slotBits: number, maxBytes: number) {
    this.maxBytes = maxBytes
    this.mask = (1 << slotBits) - 1
    this.entries = new Array(1 << slotBits).fill(undefined)
  }

  /** The slot for `buf[start..end)` (at most {@link maxBytes} long). */
  slot(buf: Uint8Array, start: number, end: number): number {
    let h = Math.imul(0x811c9dc5 ^ (end - start), FNV_PRIME)
    let i = start
    for (; i + 3 < end; i += 4) {
      h = Math.imul(h ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24)), FNV_PRIME)
    }
    for (; i < end; i++) h = Math.imul(h ^ buf[i]!, FNV_PRIME)
    return (h ^ (h >>> 16)) & this.mask
  }

  /** The value decoded from exactly these bytes, if the slot holds it. */
  get(slot: number, buf: Uint8Array, start: number, end: number): T | undefined {
    const entry = this.entries[slot]
    if (entry === undefined || entry.bytes.length !== end - start) return undefined
    const bytes = entry.bytes
    for (let i = start; i < end; i++) if (bytes[i - start] !== buf[i]) return undefined
    return entry.value
  }

  /**
   * Remembers `value` as decoded from `buf[start..end)`. The bytes are copied: the cache must not
   * key on memory the caller reuses, nor keep a whole payload alive (a Buffer's `slice` is a view).
   */
  set(slot: number, buf: Uint8Array, start: number, end: number, value: T): void {
    this.entries[slot] = { bytes: Uint8Array.prototype.slice.call(buf, start, end), value }
  }
}
