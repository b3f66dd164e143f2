/**
 * A deliberately simple protobuf writer for tests (correctness over speed): builds messages from
 * nested byte chunks, with BigInt for 64-bit values, so it shares no code with the decoder.
 */
export class ProtoWriter {
  private readonly chunks: Uint8Array[] = []

  /** Appends raw bytes. */
  raw(bytes: Uint8Array | number[]): this {
    this.chunks.push(bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes))
    return this
  }

  /** Appends a varint of a non-negative or negative (two's complement, 10 bytes) 64-bit value. */
  varint(value: bigint | number): this {
    let v = BigInt.asUintN(64, BigInt(value))
    const out: number[] = []
    while (v > 0x7fn) {
      out.push(Number(v & 0x7fn) | 0x80)
      v >>= 7n
    }
    out.push(Number(v))
    return this.raw(out)
  }

  tag(field: number, wireType: number): this {
    return this.varint((field << 3) | wireType)
  }

  /** Field of wire type 0. */
  varintField(field: number, value: bigint | number): this {
    return this.tag(field, 0).varint(value)
  }

  /** Field of wire type 1 holding a uint64/int64. */
  fixed64Field(field: number, value: bigint): this {
    const b = new Uint8Array(8)
    new DataView(b.buffer).setBigUint64(0, BigInt.asUintN(64, value), true)
    return this.tag(field, 1).raw(b)
  }

  /** Field of wire type 1 holding a double. */
  doubleField(field: number, value: number): this {
    const b = new Uint8Array(8)
    new DataView(b.buffer).setFloat64(0, value, true)
    return this.tag(field, 1).raw(b)
  }

  /** Field of wire type 5. */
  fixed32Field(field: number, value: number): this {
    const b = new Uint8Array(4)
    new DataView(b.buffer).setUint32(0, value >>> 0, true)
    return this.tag(field, 5).raw(b)
  }

  /** Length-delimited field holding bytes. */
  bytesField(field: number, bytes: Uint8Array): this {
    return this.tag(field, 2).varint(bytes.length).raw(bytes)
  }

  /** Length-delimited field holding a UTF-8 string. */
  stringField(field: number, text: string): this {
    return this.bytesField(field, new TextEncoder().encode(text))
  }

  /** Length-delimited field holding a hex id as bytes. */
  hexField(field: number, hex: string): this {
    return this.bytesField(field, Uint8Array.from(Buffer.from(hex, 'hex')))
  }

  /** Length-delimited field holding a nested message written by `build`. */
  message(field: number, build: (w: ProtoWriter) => void): this {
    const inner = new ProtoWriter()
    build(inner)
    return this.bytesField(field, inner.finish())
  }

  finish(): Uint8Array {
    const total = this.chunks.reduce((n, c) => n + c.length, 0)
    const out = new Uint8Array(total)
    let pos = 0
    for (const c of this.chunks) {
      out.set(c, pos)
      pos += c.length
    }
    return out
  }
}
