/**
 * The OTLP trace decoder: Kafka record values (`ExportTraceServiceRequest` as protobuf or OTLP/JSON)
 * to normalized {@link Span}s.
 *
 * - `decodeOtlpTraces(payload, encoding?)`: the entry point; encoding detected when omitted or `auto`.
 * - `visitOtlpSpans(payload, visit, encoding?)`: the same, span by span with each span's encoded
 *   size, for assembly without an intermediate array.
 * - `decodeOtlpJsonLines(text)`: the Collector file exporter's JSON lines.
 * - `decodeOtlpProto` / `visitOtlpProtoSpans`, `decodeOtlpJson` / `visitOtlpJsonRequest` (an
 *   already parsed request): one encoding only.
 * - `decodeOtlpLogs` / `visitOtlpLogRecords`: the same for `ExportLogsServiceRequest` (log records).
 * - `OtlpDecodeError`: every malformed payload, with `code`, `offset` (protobuf byte) or `path` (JSON).
 *
 * Protobuf spans of `LAZY_SPAN_BYTES` or more keep their attributes encoded (checked, copied) until
 * first read, but for the role keys transform needs to find agent runs (`role-attributes.ts`): most
 * spans of a production trace are never read past their envelope (`lazy-attributes.ts`).
 */

export type { Span } from '../../model/span.ts'
export { MAX_VALUE_DEPTH } from './attributes.ts'
export { OtlpDecodeError, type OtlpDecodeErrorCode } from './decode-error.ts'
export { decodeOtlpJson, visitOtlpJsonRequest } from './decode-json.ts'
export { decodeOtlpJsonLines } from './decode-json-lines.ts'
export { decodeOtlpLogs, visitOtlpLogRecords } from './decode-otlp-logs.ts'
export { decodeOtlpTraces, visitOtlpSpans } from './decode-otlp-traces.ts'
export { decodeOtlpProto, visitOtlpProtoSpans } from './decode-proto.ts'
export type { OtlpLogVisitor } from './log-visitor.ts'
export { detectOtlpEncoding, type OtlpEncoding, type OtlpEncodingOption } from './otlp-encoding.ts'
export type { OtlpSpanVisitor } from './span-visitor.ts'
