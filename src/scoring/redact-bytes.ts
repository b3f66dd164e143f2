const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Redacts the text inside a byte array (a bytes attribute or tool result): read as UTF-8 when it
 * is valid UTF-8, else one character per byte (latin1), so binary content is kept byte for byte
 * except where a secret was. Returns the same array when nothing was redacted.
 */
export function redactBytes(bytes: Uint8Array, redact: (text: string) => string): Uint8Array {
  let text: string
  let encoding: 'utf8' | 'latin1' = 'utf8'
  try {
    text = strictUtf8.decode(bytes)
  } catch {
    encoding = 'latin1'
    text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
  }
  const redacted = redact(text)
  return redacted === text ? bytes : new Uint8Array(Buffer.from(redacted, encoding))
}
