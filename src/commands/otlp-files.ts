/** Reading OTLP trace files for the commands that take them (`score`, `inspect`). */
import { createReadStream } from 'node:fs'
import { gunzipSync, zstdDecompressSync } from 'node:zlib'
import {
  decodeOtlpJsonLines,
  decodeOtlpTraces,
  detectOtlpEncoding,
  OtlpDecodeError,
} from '../ingest/decode/index.ts'
import type { Span } from '../model/index.ts'

/** The default cap on one input file (`--max-file-mib`): decoded spans take several times this in memory. */
export const DEFAULT_MAX_FILE_MIB = 256

/** A file larger than the cap (or a device that never ends, such as /dev/zero). */
class InputTooLargeError extends Error {
  override readonly name = 'InputTooLargeError'
  constructor(maxBytes: number) {
    super(
      `larger than the ${formatMib(maxBytes)} MiB limit for one file (stopped reading there); ` +
        'raise it with --max-file-mib N, or split the file',
    )
  }
}

/** A gzip or zstd file (or message) whose decompression fails. */
class UndecompressableError extends Error {
  override readonly name = 'UndecompressableError'
}

const formatMib = (bytes: number) => String(Math.round((bytes / 2 ** 20) * 100) / 100)

/** Reads a file (or any readable path: a pipe, a device) but never more than `maxBytes`. */
async function readBounded(file: string, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let total = 0
  const stream = createReadStream(file, { highWaterMark: 1 << 20 })
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length
      if (total > maxBytes) throw new InputTooLargeError(maxBytes)
      chunks.push(chunk)
    }
  } finally {
    stream.destroy()
  }
  return Buffer.concat(chunks, total)
}

/**
 * Bytes decompressed when they are gzip or zstd (the Collector's file exporter writes zstd with
 * `compression: zstd`; gzip is how such files are often shipped), else as they are.
 * Decompression stops at `maxBytes`: a small bomb must not fill the memory.
 */
function decompressed(bytes: Buffer, maxBytes: number): Buffer {
  const magic = bytes.subarray(0, 4).toString('hex')
  const inflate = magic.startsWith('1f8b')
    ? gunzipSync
    : magic === '28b52ffd'
      ? zstdDecompressSync
      : undefined
  if (!inflate) return bytes
  try {
    return inflate(bytes, { maxOutputLength: maxBytes })
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new InputTooLargeError(maxBytes)
    const format = inflate === gunzipSync ? 'gzip' : 'zstd'
    throw new UndecompressableError(`a ${format} file that does not decompress: ${(error as Error).message}`)
  }
}

/**
 * The messages of a file the Collector's file exporter wrote with `format: proto` or with
 * `compression` (each message preceded by its length as a big-endian uint32), or undefined when
 * the bytes are not such a sequence. A protobuf request starts with 0x0a, JSON with `{`, gzip
 * and zstd with their magic: read as a length, each is larger than any file this reads.
 */
function lengthPrefixedMessages(bytes: Buffer): Buffer[] | undefined {
  const messages: Buffer[] = []
  let at = 0
  while (at + 4 <= bytes.length) {
    const end = at + 4 + bytes.readUInt32BE(at)
    if (end > bytes.length) return undefined
    messages.push(bytes.subarray(at + 4, end))
    at = end
  }
  return at === bytes.length && messages.length > 0 ? messages : undefined
}

/**
 * Decodes one OTLP file: a protobuf or JSON export request, the Collector file exporter's JSON
 * lines, or its length-prefixed messages (each may be zstd-compressed); a gzip or zstd file is
 * decompressed first.
 */
function decodeOtlpFile(file: Buffer, maxBytes: number): Span[] {
  const bytes = decompressed(file, maxBytes)
  const messages = lengthPrefixedMessages(bytes)
  if (!messages) return decodeOtlpRequest(bytes)
  const spans: Span[] = []
  for (const message of messages)
    for (const span of decodeOtlpRequest(decompressed(message, maxBytes))) spans.push(span)
  return spans
}

/** One OTLP export request (protobuf or JSON), or JSON lines of them. */
function decodeOtlpRequest(bytes: Uint8Array): Span[] {
  if (detectOtlpEncoding(bytes) === 'otlp_proto') return decodeOtlpTraces(bytes, 'otlp_proto')
  const text = Buffer.from(bytes).toString('utf8')
  try {
    return decodeOtlpTraces(text, 'otlp_json')
  } catch (error) {
    if (text.trim().includes('\n')) return decodeOtlpJsonLines(text)
    throw error
  }
}

const READ_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory, not a file',
  EACCES: 'permission denied',
}

/** Reads and decodes one file; reports a problem on stderr and resolves to undefined when it cannot. */
export async function readOtlpFile(file: string, maxBytes: number): Promise<Span[] | undefined> {
  let bytes: Buffer
  try {
    bytes = await readBounded(file, maxBytes)
  } catch (error) {
    console.error(
      `tracescore: ${file}: ${READ_ERRORS[(error as { code?: string }).code ?? ''] ?? (error as Error).message}`,
    )
    return undefined
  }
  if (bytes.length === 0) {
    console.error(`tracescore: warning: ${file} is empty; nothing to score`)
    return []
  }
  try {
    const spans = decodeOtlpFile(bytes, maxBytes)
    if (spans.length === 0) console.error(`tracescore: warning: ${file} holds no spans; nothing to score`)
    return spans
  } catch (error) {
    // Whatever the decoder throws concerns this file only: the other files are still scored.
    const message = (error as Error).message
    if (error instanceof InputTooLargeError || error instanceof UndecompressableError) {
      console.error(`tracescore: ${file}: ${message}`)
      return undefined
    }
    const what = !(error instanceof OtlpDecodeError)
      ? 'could not be decoded: '
      : message.startsWith('not an OTLP')
        ? ''
        : 'not an OTLP trace file: '
    console.error(
      `tracescore: ${file}: ${what}${message}. Expected an OTLP ` +
        "ExportTraceServiceRequest (protobuf or JSON) or a file the Collector's file exporter wrote",
    )
    return undefined
  }
}

/** Reads and decodes every file: their spans together, and how many files could not be read or decoded. */
export async function readOtlpFiles(
  files: string[],
  maxBytes: number,
): Promise<{ spans: Span[]; failed: number }> {
  const spans: Span[] = []
  let failed = 0
  for (const file of files) {
    const decoded = await readOtlpFile(file, maxBytes)
    if (decoded === undefined) failed++
    // One span at a time: spreading a file's spans into push() overflows the stack past ~125,000.
    else for (const span of decoded) spans.push(span)
  }
  return { spans, failed }
}
