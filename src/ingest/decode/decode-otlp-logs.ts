import type { LogRecord } from '../../model/log-record.ts'
import { visitOtlpJsonLogsRequest } from './decode-json-logs.ts'
import { visitOtlpPayload } from './decode-otlp-traces.ts'
import { visitOtlpProtoLogRecords } from './decode-proto-logs.ts'
import type { OtlpLogVisitor } from './log-visitor.ts'
import type { OtlpEncodingOption } from './otlp-encoding.ts'

/**
 * Decodes one OTLP `ExportLogsServiceRequest` (a record of the Collector's logs topic, protobuf or
 * OTLP/JSON, detected when `auto`) and hands each log record to `visit` with its encoded size, in
 * payload order. Throws {@link OtlpDecodeError} on malformed input, with the span decoder's codes
 * and bounds; as with spans, protobuf records before the bad byte may already have been visited.
 */
export function visitOtlpLogRecords(
  payload: Uint8Array | string,
  visit: OtlpLogVisitor,
  encoding: OtlpEncodingOption = 'auto',
): void {
  visitOtlpPayload(
    payload,
    encoding,
    (request, size) => visitOtlpJsonLogsRequest(request, visit, size),
    (bytes) => visitOtlpProtoLogRecords(bytes, visit),
  )
}

/** Decodes one OTLP `ExportLogsServiceRequest` into normalized log records, in payload order. */
export function decodeOtlpLogs(payload: Uint8Array | string, encoding?: OtlpEncodingOption): LogRecord[] {
  const records: LogRecord[] = []
  visitOtlpLogRecords(payload, (record) => records.push(record), encoding)
  return records
}
