import type { Span } from '../../model/span.ts'

/**
 * Receives each decoded span as soon as it is complete, with the size in bytes of its encoded form
 * (the `Span` message in protobuf; the span's share of the payload in JSON), for assembly without
 * an intermediate array and for byte-based buffer limits. Spans that arrive before a decode error
 * are not taken back.
 */
export type OtlpSpanVisitor = (span: Span, encodedBytes: number) => void
