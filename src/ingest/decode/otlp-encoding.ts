/** The Collector's Kafka encodings for traces that tracescore reads. */
export type OtlpEncoding = 'otlp_proto' | 'otlp_json'

/** An encoding to decode with, or `auto`: detected per payload (see {@link detectOtlpEncoding}). */
export type OtlpEncodingOption = OtlpEncoding | 'auto'

/**
 * Guesses the encoding of a payload: a string, or bytes whose first non-whitespace byte is `{`
 * (after an optional UTF-8 BOM), is OTLP/JSON; anything else is protobuf.
 */
export function detectOtlpEncoding(payload: Uint8Array | string): OtlpEncoding {
  if (typeof payload === 'string') return 'otlp_json'
  let i = 0
  if (payload[0] === 0xef && payload[1] === 0xbb && payload[2] === 0xbf) i = 3
  for (; i < payload.length; i++) {
    const c = payload[i]
    if (c === 0x7b) return 'otlp_json'
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return 'otlp_proto'
  }
  return 'otlp_proto'
}
