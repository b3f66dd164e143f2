import { WireType } from '../ingest/decode/protobuf-reader.ts'

/**
 * A protobuf encoder that runs the same code twice: first to measure (it only counts bytes and
 * notes the length of every string and length-delimited field, in the order they come), then to
 * write into one buffer of the exact size, taking those lengths in the same order. A message's
 * length is therefore known before its content is written: no bytes are shifted, no buffer grows.
 * Lengths, tags and varints are written as protobufjs and the OTel JS writer write them (shortest
 * form; a negative int64 as ten bytes).
 *
 *   const w = new ProtobufWriter()
 *   writeMessage(w); w.startWriting(); writeMessage(w); const bytes = w.finish()
 */
export class ProtobufWriter {
  /** The output; undefined while measuring. */
  private buf: Buffer | undefined
  private view: DataView | undefined
  private pos = 0
  /** Lengths of strings and messages in the order they are met (while measuring, a message's start). */
  private readonly lengths: number[] = []
  private next = 0

  /** Ends measuring: the next pass of the same code writes. */
  startWriting(): void {
    this.buf = Buffer.alloc(this.pos)
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength)
    this.pos = 0
  }

  /** The written bytes (after the writing pass). */
  finish(): Uint8Array {
    if (!this.buf || this.pos !== this.buf.length || this.next !== this.lengths.length) {
      throw new Error('ProtobufWriter: the writing pass did not follow the measuring pass')
    }
    return this.buf
  }

  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType)
  }

  /** A varint of an unsigned 32-bit number or a 64-bit integer (negative: two's complement, 10 bytes). */
  varint(value: number): void {
    if (value >= 0 && value < 0x80) {
      if (this.buf) this.buf[this.pos] = value
      this.pos++
    } else if (value >= 0 && value <= 0xffffffff) this.varint64(value >>> 0, 0)
    else this.varint64(value >>> 0, Math.floor(value / 2 ** 32) >>> 0)
  }

  private varint64(lo: number, hi: number): void {
    const buf = this.buf
    while (hi > 0 || lo > 0x7f) {
      if (buf) buf[this.pos] = (lo & 0x7f) | 0x80
      this.pos++
      lo = ((lo >>> 7) | (hi << 25)) >>> 0
      hi >>>= 7
    }
    if (buf) buf[this.pos] = lo
    this.pos++
  }

  fixed32(value: number): void {
    this.view?.setUint32(this.pos, value, true)
    this.pos += 4
  }

  /** A fixed64 from its low and high 32 bits. */
  fixed64(lo: number, hi: number): void {
    this.view?.setUint32(this.pos, lo, true)
    this.view?.setUint32(this.pos + 4, hi, true)
    this.pos += 8
  }

  double(value: number): void {
    this.view?.setFloat64(this.pos, value, true)
    this.pos += 8
  }

  /** A string as length-prefixed UTF-8 (lone surrogates become U+FFFD, as TextEncoder writes them). */
  string(value: string): void {
    const buf = this.buf
    if (!buf) {
      const length = utf8Length(value)
      this.lengths.push(length)
      this.varint(length)
      this.pos += length
      return
    }
    const length = this.lengths[this.next++]!
    this.varint(length)
    if (length === value.length && length <= 64) {
      for (let i = 0; i < length; i++) buf[this.pos + i] = value.charCodeAt(i)
    } else {
      buf.write(value, this.pos, length, 'utf8')
    }
    this.pos += length
  }

  /** Length-prefixed bytes. */
  bytes(value: Uint8Array): void {
    this.varint(value.length)
    if (this.buf) this.buf.set(value, this.pos)
    this.pos += value.length
  }

  /** Bytes given as hex digits, length-prefixed (as OTel's `hexToBinary`: any case, no validation). */
  hexBytes(hex: string): void {
    if (hex.length % 2 !== 0) throw new RangeError(`an id of odd length: ${hex}`)
    const length = hex.length / 2
    this.varint(length)
    const buf = this.buf
    if (buf) {
      for (let i = 0; i < length; i++) {
        buf[this.pos + i] = (hexDigit(hex.charCodeAt(2 * i)) << 4) | hexDigit(hex.charCodeAt(2 * i + 1))
      }
    }
    this.pos += length
  }

  /**
   * Starts a length-delimited field (its tag, then its length); the content follows, then
   * `end(start)` with what `start` returned.
   */
  start(field: number): number {
    this.tag(field, WireType.LENGTH_DELIMITED)
    if (this.buf) {
      this.varint(this.lengths[this.next++]!)
      return 0
    }
    this.lengths.push(this.pos)
    return this.lengths.length - 1
  }

  end(started: number): void {
    if (this.buf) return
    const length = this.pos - this.lengths[started]!
    this.lengths[started] = length
    this.varint(length)
  }
}

/** The UTF-8 length of a string: counted in place when short and ASCII, else by Buffer. */
function utf8Length(value: string): number {
  if (value.length > 64) return Buffer.byteLength(value)
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) > 0x7f) return Buffer.byteLength(value)
  }
  return value.length
}

/** The value of a hex digit, as OTel's `hexToBinary` reads it. */
function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48
  if (code >= 97 && code <= 102) return code - 87
  return code - 55
}
