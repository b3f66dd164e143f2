import { OtlpDecodeError } from './decode-error.ts'
import { StringCache } from './string-cache.ts'

/** Protobuf wire types. */
export const WireType = {
  VARINT: 0,
  FIXED64: 1,
  LENGTH_DELIMITED: 2,
  START_GROUP: 3,
  END_GROUP: 4,
  FIXED32: 5,
} as const

/** Node's native slice decoders (what `Buffer#toString` calls after its argument checks). */
interface NativeSlices {
  utf8Slice(start: number, end: number): string
  hexSlice(start: number, end: number): string
  latin1Slice(start: number, end: number): string
}

/** Char codes of the two lowercase hex digits of every byte value. */
const HEX_HIGH = new Uint8Array(256)
const HEX_LOW = new Uint8Array(256)
for (let i = 0; i < 256; i++) {
  HEX_HIGH[i] = '0123456789abcdef'.charCodeAt(i >>> 4)
  HEX_LOW[i] = '0123456789abcdef'.charCodeAt(i & 15)
}

/** Lowercase hex of the 8 bytes at `p`, built as one flat string (faster than a native call or concatenation). */
function hex8(buf: Uint8Array, p: number): string {
  const a = buf[p]!
  const b = buf[p + 1]!
  const c = buf[p + 2]!
  const d = buf[p + 3]!
  const e = buf[p + 4]!
  const f = buf[p + 5]!
  const g = buf[p + 6]!
  const h = buf[p + 7]!
  return String.fromCharCode(
    HEX_HIGH[a]!,
    HEX_LOW[a]!,
    HEX_HIGH[b]!,
    HEX_LOW[b]!,
    HEX_HIGH[c]!,
    HEX_LOW[c]!,
    HEX_HIGH[d]!,
    HEX_LOW[d]!,
    HEX_HIGH[e]!,
    HEX_LOW[e]!,
    HEX_HIGH[f]!,
    HEX_LOW[f]!,
    HEX_HIGH[g]!,
    HEX_LOW[g]!,
    HEX_HIGH[h]!,
    HEX_LOW[h]!,
  )
}

/** Strings from this many bytes on are decoded with a guard: V8 strings hold at most 2^29 - 24 chars. */
const HUGE_STRING_BYTES = 2 ** 28

/** Attribute keys: few distinct ones, all repeated, some differing only in an index (OpenInference). */
const keyCache = new StringCache(10, 64)
/** Short string values and names: many repeat (operation names, models, routes, methods). */
const valueCache = new StringCache(12, 32)

/** Fields read and values copied by every reader so far: what tests bound per input byte. */
let work = 0

/**
 * The decoder's work since the process started: fields read plus attribute values copied. Every
 * decoding step counts here, so a test can assert that hostile input costs work linear in its size.
 */
export function decodeWork(): number {
  return work
}

/** Counts `n` units of work done outside {@link ProtobufReader.tag} (values copied by a merge). */
export function addDecodeWork(n: number): void {
  work += n
}

/**
 * A cursor over protobuf wire-format bytes with the primitives the OTLP message decoders need.
 * Every read is bounds-checked against `limit` (the end of the enclosing message) and throws
 * {@link OtlpDecodeError} on malformed input; nothing allocates more than the bytes it reads.
 */
export class ProtobufReader {
  /** The payload as a plain `Uint8Array` (a Buffer's `slice` would be a view, not a copy). */
  readonly buf: Uint8Array
  pos = 0
  /** Low and high 32 bits of the last {@link varint64} read. */
  lo = 0
  hi = 0
  /** Created on the first double: most payloads have none. */
  private view: DataView | undefined
  private readonly native: NativeSlices
  /** Where the last {@link traceId} was read from, and its hex: all spans of a trace share one. */
  private lastIdStart = -1
  private lastIdEnd = -1
  private lastId = ''

  constructor(buf: Uint8Array) {
    // Views, not copies: one plain array (monomorphic reads, a copying `slice`) and one Buffer
    // for Node's native string decoders. Kafka hands out Buffers, tests plain arrays.
    const isBuffer = Buffer.isBuffer(buf)
    this.buf = isBuffer ? new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength) : buf
    this.native = (isBuffer
      ? buf
      : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength)) as unknown as NativeSlices
  }

  /** Reads a varint that must fit in 32 bits (tags, lengths); returns it unsigned. */
  uint32(limit: number): number {
    const buf = this.buf
    let pos = this.pos
    if (pos >= limit) throw this.error('truncated', 'varint past end', pos)
    let b = buf[pos++]!
    if (b < 0x80) {
      this.pos = pos
      return b
    }
    let value = b & 0x7f
    let shift = 7
    while (shift < 35) {
      if (pos >= limit) throw this.error('truncated', 'varint past end', pos)
      b = buf[pos++]!
      if (shift === 28) {
        if (b > 0x0f) throw this.error('invalid_varint', 'varint does not fit in 32 bits', pos - 1)
        value = (value | (b << 28)) >>> 0
        this.pos = pos
        return value
      }
      value |= (b & 0x7f) << shift
      if (b < 0x80) {
        this.pos = pos
        return value
      }
      shift += 7
    }
    /* c8 ignore next */
    throw this.error('invalid_varint', 'varint does not fit in 32 bits', pos)
  }

  /** Reads a varint of up to 64 bits into {@link lo}/{@link hi}. */
  varint64(limit: number): void {
    const buf = this.buf
    let pos = this.pos
    let lo = 0
    let hi = 0
    let b = 0
    for (let shift = 0; shift < 28; shift += 7) {
      if (pos >= limit) throw this.error('truncated', 'varint past end', pos)
      b = buf[pos++]!
      lo |= (b & 0x7f) << shift
      if (b < 0x80) {
        this.pos = pos
        this.lo = lo >>> 0
        this.hi = 0
        return
      }
    }
    // Byte 5 carries bits 28..34: 4 into lo, 3 into hi.
    if (pos >= limit) throw this.error('truncated', 'varint past end', pos)
    b = buf[pos++]!
    lo |= (b & 0x0f) << 28
    hi = (b & 0x7f) >> 4
    if (b >= 0x80) {
      for (let shift = 3; ; shift += 7) {
        if (pos >= limit) throw this.error('truncated', 'varint past end', pos)
        b = buf[pos++]!
        if (shift === 31) {
          // Byte 10 holds only bit 63.
          if (b > 0x01) throw this.error('invalid_varint', 'varint longer than 64 bits', pos - 1)
          hi |= b << 31
          break
        }
        hi |= (b & 0x7f) << shift
        if (b < 0x80) break
      }
    }
    this.pos = pos
    this.lo = lo >>> 0
    this.hi = hi >>> 0
  }

  /** Reads a varint as a 32-bit signed integer (enums, which negative values encode in 10 bytes). */
  int32(limit: number): number {
    this.varint64(limit)
    return this.lo | 0
  }

  /** Reads a varint and returns whether it is non-zero (bool). */
  bool(limit: number): boolean {
    this.varint64(limit)
    return (this.lo | this.hi) !== 0
  }

  /** Reads a little-endian fixed64 into {@link lo}/{@link hi}. */
  fixed64(limit: number): void {
    const pos = this.pos
    if (pos + 8 > limit) throw this.error('truncated', 'fixed64 past end', pos)
    const buf = this.buf
    this.lo = (buf[pos]! | (buf[pos + 1]! << 8) | (buf[pos + 2]! << 16) | (buf[pos + 3]! << 24)) >>> 0
    this.hi = (buf[pos + 4]! | (buf[pos + 5]! << 8) | (buf[pos + 6]! << 16) | (buf[pos + 7]! << 24)) >>> 0
    this.pos = pos + 8
  }

  /** Reads a little-endian IEEE 754 double. */
  double(limit: number): number {
    const pos = this.pos
    if (pos + 8 > limit) throw this.error('truncated', 'double past end', pos)
    this.pos = pos + 8
    this.view ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength)
    return this.view.getFloat64(pos, true)
  }

  /** Reads the length prefix of a length-delimited field and returns the end offset of its content. */
  lengthEnd(limit: number): number {
    const len = this.uint32(limit)
    const end = this.pos + len
    if (end > limit)
      throw this.error('truncated', `length ${len} exceeds the ${limit - this.pos} bytes left`, this.pos)
    return end
  }

  /** Decodes bytes `pos..end` as UTF-8 (invalid sequences become U+FFFD) and moves past them. */
  string(end: number): string {
    const start = this.pos
    this.pos = end
    const len = end - start
    if (len === 0) return ''
    if (len > valueCache.maxBytes)
      return len < HUGE_STRING_BYTES ? this.native.utf8Slice(start, end) : this.huge(start, end)
    const slot = valueCache.find(this.buf, start, end)
    if (slot >= 0) return valueCache.get(slot)
    const value = this.native.utf8Slice(start, end)
    valueCache.store(-1 - slot, this.buf, start, end, value)
    return value
  }

  /**
   * Moves past a string field of bytes `pos..end` without decoding it, but for one so large that
   * decoding it may fail (too_large): that one is decoded now, so the failure happens now.
   */
  skipString(end: number): void {
    if (end - this.pos < HUGE_STRING_BYTES) this.pos = end
    else this.string(end)
  }

  /** Decodes a string of hundreds of MB, which may exceed V8's string length limit. */
  private huge(start: number, end: number): string {
    try {
      return this.native.utf8Slice(start, end)
    } catch (cause) {
      throw new OtlpDecodeError('too_large', `string of ${end - start} bytes`, { offset: start, cause })
    }
  }

  /**
   * Like {@link string}, for attribute keys, from a separate cache: the same key string instance
   * every time, which V8 internalizes once on its first property store and then stores fast.
   */
  key(end: number): string {
    const start = this.pos
    const len = end - start
    if (len > keyCache.maxBytes || len === 0) return this.string(end)
    this.pos = end
    const slot = keyCache.find(this.buf, start, end)
    if (slot >= 0) return keyCache.get(slot)
    const key = this.native.utf8Slice(start, end)
    keyCache.store(-1 - slot, this.buf, start, end, key)
    return key
  }

  /**
   * Bytes `start..end` as a latin1 string (one char per byte): an owned copy of them on the V8
   * heap, cheaper to make and to collect than a typed array. `Buffer.from(s, 'latin1')` restores them.
   */
  latin1(start: number, end: number): string {
    return this.native.latin1Slice(start, end)
  }

  /** Lowercase hex of bytes `pos..end`, moving past them. */
  hex(end: number): string {
    const start = this.pos
    this.pos = end
    // Span ids in JS; trace ids (deduplicated by traceId) natively, which gives a flat string.
    if (end - start === 8) return hex8(this.buf, start)
    return this.native.hexSlice(start, end)
  }

  /** Lowercase hex of a trace id in bytes `pos..end`, reusing the previous one's string when the bytes are equal. */
  traceId(end: number): string {
    const buf = this.buf
    const start = this.pos
    this.pos = end
    const prev = this.lastIdStart
    if (end - start === this.lastIdEnd - prev) {
      let i = 0
      const len = end - start
      while (i < len && buf[start + i] === buf[prev + i]) i++
      if (i === len) return this.lastId
    }
    this.pos = start
    const id = this.hex(end)
    this.lastIdStart = start
    this.lastIdEnd = end
    this.lastId = id
    return id
  }

  /** A copy of bytes `pos..end` (so the result does not keep the whole payload alive), moving past them. */
  bytes(end: number): Uint8Array {
    const out = this.buf.slice(this.pos, end)
    this.pos = end
    return out
  }

  /** Skips the value of a field with tag `tag` (any wire type but groups). */
  skip(tag: number, limit: number): void {
    switch (tag & 7) {
      case WireType.VARINT:
        this.varint64(limit)
        return
      case WireType.FIXED64:
        this.skipFixed(8, limit)
        return
      case WireType.LENGTH_DELIMITED:
        this.pos = this.lengthEnd(limit)
        return
      case WireType.FIXED32:
        this.skipFixed(4, limit)
        return
      case WireType.START_GROUP:
      case WireType.END_GROUP:
        throw this.error(
          'unsupported_wire_type',
          `group (wire type ${tag & 7}) in field ${tag >>> 3}`,
          this.pos,
        )
      default:
        throw this.error('invalid_tag', `invalid wire type ${tag & 7} in field ${tag >>> 3}`, this.pos)
    }
  }

  /** Skips a fixed64 (`bytes` 8) or fixed32 (4) value. */
  private skipFixed(bytes: 4 | 8, limit: number): void {
    if (this.pos + bytes > limit) throw this.error('truncated', `fixed${bytes * 8} past end`, this.pos)
    this.pos += bytes
  }

  /** Reads a field tag and rejects field number 0. */
  tag(limit: number): number {
    work++
    const tag = this.uint32(limit)
    if (tag < 8) throw this.error('invalid_tag', 'field number 0', this.pos - 1)
    return tag
  }

  /** An {@link OtlpDecodeError} at `offset`. */
  error(code: OtlpDecodeError['code'], message: string, offset: number): OtlpDecodeError {
    return new OtlpDecodeError(code, message, { offset })
  }
}
