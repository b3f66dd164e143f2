/**
 * Compression codecs for kafkajs, which only ships gzip. Producers in front of us (the OpenTelemetry
 * Collector's Kafka exporter, Java clients) may use snappy, lz4 or zstd; kafkajs fails such a fetch
 * with "Snappy compression not implemented" unless a codec is registered on `CompressionCodecs`.
 *
 * All three are installed from npm without native builds or downloads:
 * - snappy: `kafkajs-snappy` (pure JS, `snappyjs`), reads both raw snappy and the xerial framing
 *   that Java producers write; writes raw snappy, which Java's xerial `SnappyInputStream` accepts.
 * - lz4: `lz4js` (pure JS) for the block codec, framed here. Kafka (magic v2) uses the standard
 *   LZ4 frame format, and Java's `Lz4BlockInputStream` rejects frames whose blocks are dependent
 *   (`lz4js.compress` writes such frames), so compression writes independent 64 KiB blocks itself.
 * - zstd: Node's own `node:zlib` (`zstdCompress` / `zstdDecompress`, Node >= 22.15).
 *
 * Each one is verified in test/integration/kafka-smoke.test.ts: through the real broker (which
 * validates every batch), both ways against Java's client, and on batches franz-go (the client in
 * the Collector's kafka exporter) wrote: raw snappy, LZ4 frames with 4 MiB blocks and a content
 * checksum, zstd frames.
 */
import { createRequire } from 'node:module'
import { promisify } from 'node:util'
import zlib from 'node:zlib'
import kafkajs from 'kafkajs'

// Not `import { CompressionCodecs, CompressionTypes } from 'kafkajs'`: Node's ESM loader cannot see
// those two CommonJS exports (kafkajs's index.js assigns them from member expressions, which
// cjs-module-lexer does not detect), so that named import fails at run time under node/tsx.
const { CompressionCodecs, CompressionTypes } = kafkajs
type CompressionTypes = kafkajs.CompressionTypes

/** What kafkajs expects from a codec factory's product. */
interface KafkaCodec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>
  decompress(buffer: Buffer): Promise<Buffer>
}

const require = createRequire(import.meta.url)

// ---------- snappy ----------
const snappyCodec = (require('kafkajs-snappy') as () => KafkaCodec)()

// ---------- lz4 ----------
interface Lz4js {
  compressBlock(
    src: Uint8Array,
    dst: Uint8Array,
    sIndex: number,
    sLength: number,
    hashTable: Uint32Array,
  ): number
  compressBound(n: number): number
  decompress(src: Uint8Array, maxSize?: number): Uint8Array
}
const lz4js = require('lz4js') as Lz4js
const xxh32 = require('lz4js/xxh32.js') as {
  hash(seed: number, src: Uint8Array, index: number, len: number): number
}

const LZ4_MAGIC = 0x184d2204
const LZ4_FLG = 0x60 // version 01, block independence; no checksums, no content size
const LZ4_BD = 0x40 // max block size 64 KiB (what Java's producer writes too)
const LZ4_BLOCK = 64 * 1024
const LZ4_UNCOMPRESSED = 0x80000000

/** An LZ4 frame with independent blocks, readable by Java's Kafka clients and the broker. */
export function lz4CompressFrame(src: Uint8Array): Buffer {
  const blocks: Buffer[] = []
  const header = Buffer.alloc(7)
  header.writeUInt32LE(LZ4_MAGIC, 0)
  header[4] = LZ4_FLG
  header[5] = LZ4_BD
  header[6] = (xxh32.hash(0, header, 4, 2) >>> 8) & 0xff
  blocks.push(header)
  const scratch = new Uint8Array(lz4js.compressBound(LZ4_BLOCK))
  for (let start = 0; start < src.length; start += LZ4_BLOCK) {
    const block = src.subarray(start, Math.min(start + LZ4_BLOCK, src.length))
    // A fresh hash table per block: matches never reach into the previous block.
    const size = lz4js.compressBlock(block, scratch, 0, block.length, new Uint32Array(1 << 16))
    const sizeField = Buffer.alloc(4)
    if (size === 0 || size >= block.length) {
      sizeField.writeUInt32LE((LZ4_UNCOMPRESSED | block.length) >>> 0, 0)
      blocks.push(sizeField, Buffer.from(block))
    } else {
      sizeField.writeUInt32LE(size, 0)
      blocks.push(sizeField, Buffer.from(scratch.subarray(0, size)))
    }
  }
  blocks.push(Buffer.alloc(4)) // end mark
  return Buffer.concat(blocks)
}

/** Decodes any LZ4 frame (independent or dependent blocks, with or without checksums). */
export function lz4DecompressFrame(src: Uint8Array): Buffer {
  const out = lz4js.decompress(src)
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength)
}

const lz4Codec: KafkaCodec = {
  async compress(encoder) {
    return lz4CompressFrame(encoder.buffer)
  },
  async decompress(buffer) {
    return lz4DecompressFrame(buffer)
  },
}

// ---------- zstd ----------
const zstdCompress = zlib.zstdCompress ? promisify(zlib.zstdCompress) : undefined
const zstdDecompress = zlib.zstdDecompress ? promisify(zlib.zstdDecompress) : undefined
const zstdCodec: KafkaCodec = {
  async compress(encoder) {
    if (!zstdCompress) throw new Error('zstd needs Node >= 22.15 (node:zlib zstdCompress)')
    return zstdCompress(encoder.buffer)
  },
  async decompress(buffer) {
    if (!zstdDecompress) throw new Error('zstd needs Node >= 22.15 (node:zlib zstdDecompress)')
    return zstdDecompress(buffer)
  },
}

/** The codecs this module provides, by kafkajs compression type. */
export const codecs = {
  [CompressionTypes.Snappy]: snappyCodec,
  [CompressionTypes.LZ4]: lz4Codec,
  [CompressionTypes.ZSTD]: zstdCodec,
} as const

/**
 * Registers snappy, lz4 and zstd on kafkajs's global `CompressionCodecs` (gzip is built in).
 * Idempotent; call it once before creating consumers/producers. Returns the registered types.
 */
export function registerCompressionCodecs(): CompressionTypes[] {
  CompressionCodecs[CompressionTypes.Snappy] = () => snappyCodec
  CompressionCodecs[CompressionTypes.LZ4] = () => lz4Codec
  CompressionCodecs[CompressionTypes.ZSTD] = () => zstdCodec
  return [CompressionTypes.Snappy, CompressionTypes.LZ4, CompressionTypes.ZSTD]
}
