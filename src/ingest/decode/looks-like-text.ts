const BOM = [0xef, 0xbb, 0xbf] as const
/** How many leading bytes are checked: enough to tell, bounded whatever the payload size. */
const SAMPLE_BYTES = 512

/**
 * Whether a payload looks like text: its first bytes are printable ASCII, tab/CR/LF or well-formed
 * UTF-8 sequences. Protobuf OTLP never does (its first message's field tags and lengths are control
 * bytes), so a payload that failed to decode and looks like text was never OTLP protobuf.
 */
export function looksLikeText(payload: Uint8Array): boolean {
  const end = Math.min(payload.length, SAMPLE_BYTES)
  if (end === 0) return false
  let i = 0
  while (i < end) {
    const b = payload[i]!
    if (b < 0x80) {
      if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) || b === 0x7f) return false
      i++
      continue
    }
    // Lead byte of a 2-, 3- or 4-byte sequence (no overlong 0xc0/0xc1, nothing above U+10FFFF).
    const continuation =
      b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1
    if (continuation < 0) return false
    for (let k = 1; k <= continuation && i + k < payload.length; k++) {
      if ((payload[i + k]! & 0xc0) !== 0x80) return false
    }
    i += continuation + 1
  }
  return true
}

/** How many UTF-8 byte-order marks the payload starts with. */
export function leadingByteOrderMarks(payload: Uint8Array): number {
  let n = 0
  while (payload[n * 3] === BOM[0] && payload[n * 3 + 1] === BOM[1] && payload[n * 3 + 2] === BOM[2]) n++
  return n
}
