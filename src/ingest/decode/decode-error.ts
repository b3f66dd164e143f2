/** Why an OTLP payload could not be decoded. */
export type OtlpDecodeErrorCode =
  /** A length, varint or fixed-size value runs past the end of the payload (or of its enclosing message). */
  | 'truncated'
  /** A varint longer than 10 bytes, or a length/tag that does not fit in 32 bits. */
  | 'invalid_varint'
  /** A field tag with field number 0 or an unknown wire type (6, 7). */
  | 'invalid_tag'
  /** A deprecated group (wire types 3 and 4), which OTLP never uses. */
  | 'unsupported_wire_type'
  /** A trace or span id of the wrong length or not hex/base64. */
  | 'invalid_id'
  /** Values nested deeper than the decoder allows (arrays/kvlists inside each other). */
  | 'too_deep'
  /** A string longer than a JavaScript string can be. */
  | 'too_large'
  /** Text that is not JSON. */
  | 'invalid_json'
  /** Bytes that are neither protobuf nor JSON but text (a log line, a CSV file, JSON after two byte-order marks). */
  | 'not_otlp'
  /** JSON that is not a valid OTLP/JSON export request (a field of the wrong type). */
  | 'invalid_field'

/** Thrown when an OTLP payload (protobuf or JSON) is malformed; carries a reason code and where it was found. */
export class OtlpDecodeError extends Error {
  override readonly name = 'OtlpDecodeError'
  /** Machine-readable reason. */
  readonly code: OtlpDecodeErrorCode
  /** Byte offset in the protobuf payload (or character offset in JSON text) where decoding failed, if known. */
  readonly offset: number | undefined
  /** Path of the offending JSON field (`resourceSpans[0].scopeSpans[1].spans[2].traceId`), if known. */
  readonly path: string | undefined

  constructor(
    code: OtlpDecodeErrorCode,
    message: string,
    details: { offset?: number; path?: string; cause?: unknown } = {},
  ) {
    const where =
      details.offset !== undefined
        ? ` at offset ${details.offset}`
        : details.path
          ? ` at ${details.path}`
          : ''
    super(`${message}${where}`, details.cause !== undefined ? { cause: details.cause } : undefined)
    this.code = code
    this.offset = details.offset
    this.path = details.path
  }
}
