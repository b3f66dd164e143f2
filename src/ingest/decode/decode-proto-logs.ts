import type { LogRecord } from '../../model/log-record.ts'
import type { Attributes, AttributeValue, InstrumentationScope } from '../../model/span.ts'
import { OtlpDecodeError } from './decode-error.ts'
import { eventNameOf } from './decode-json-logs.ts'
import { findScope, notOtlpText, readResourceField } from './decode-proto.ts'
import { uint64ToDecimal } from './int64-decimal.ts'
import type { OtlpLogVisitor } from './log-visitor.ts'
import { looksLikeText } from './looks-like-text.ts'
import { readAnyValue, readKeyValue } from './proto-values.ts'
import { ProtobufReader } from './protobuf-reader.ts'
import { SPAN_ID_BYTES, TRACE_ID_BYTES } from './read-span.ts'

// Tags are (field number << 3) | wire type, as in opentelemetry/proto/logs/v1/logs.proto.
// ExportLogsServiceRequest / LogsData
const REQUEST_RESOURCE_LOGS = 0x0a // 1 resource_logs: ResourceLogs
// ResourceLogs (1 resource, as ResourceSpans: read by `readResourceField`)
const RL_SCOPE_LOGS = 0x12 // 2 scope_logs: ScopeLogs
// ScopeLogs (1 scope, as ScopeSpans: read by `findScope`)
const SL_LOG_RECORDS = 0x12 // 2 log_records: LogRecord
// LogRecord
const LOG_TIME = 0x09 // 1 time_unix_nano: fixed64
const LOG_SEVERITY_NUMBER = 0x10 // 2 severity_number: enum
const LOG_SEVERITY_TEXT = 0x1a // 3 severity_text: string
const LOG_BODY = 0x2a // 5 body: AnyValue
const LOG_ATTRIBUTES = 0x32 // 6 attributes: KeyValue
const LOG_TRACE_ID = 0x4a // 9 trace_id: bytes
const LOG_SPAN_ID = 0x52 // 10 span_id: bytes
const LOG_OBSERVED_TIME = 0x59 // 11 observed_time_unix_nano: fixed64
const LOG_EVENT_NAME = 0x62 // 12 event_name: string

/**
 * Decodes a protobuf `ExportLogsServiceRequest` (or `LogsData`, same bytes) and hands every log
 * record to `visit` with the encoded size of its `LogRecord` message, in payload order. The span
 * decoder's reader and bounds apply (lengths checked against what is left, values nested at most
 * `MAX_VALUE_DEPTH`, repeated resources merged in linear time). Throws {@link OtlpDecodeError}.
 */
export function visitOtlpProtoLogRecords(payload: Uint8Array, visit: OtlpLogVisitor): void {
  const r = new ProtobufReader(payload)
  const limit = payload.length
  try {
    while (r.pos < limit) {
      const tag = r.tag(limit)
      if (tag === REQUEST_RESOURCE_LOGS) readResourceLogs(r, r.lengthEnd(limit), visit)
      else r.skip(tag, limit)
    }
  } catch (error) {
    if (error instanceof OtlpDecodeError && looksLikeText(payload)) throw notOtlpText(payload, error)
    throw error
  }
}

function readResourceLogs(r: ProtobufReader, end: number, visit: OtlpLogVisitor): void {
  const start = r.pos
  const resource = readResourceField(r, end, (tag) => r.skip(tag, end))
  r.pos = start
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === RL_SCOPE_LOGS) readScopeLogs(r, r.lengthEnd(end), resource, visit)
    else r.skip(tag, end)
  }
}

function readScopeLogs(r: ProtobufReader, end: number, resource: Attributes, visit: OtlpLogVisitor): void {
  const scope = findScope(r, end)
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === SL_LOG_RECORDS) {
      const recordEnd = r.lengthEnd(end)
      const size = recordEnd - r.pos
      visit(readLogRecord(r, recordEnd, resource, scope), size)
    } else r.skip(tag, end)
  }
}

/** Reads one `LogRecord` message (`r.pos..end`), decoded at once. */
function readLogRecord(
  r: ProtobufReader,
  end: number,
  resource: Attributes,
  scope: InstrumentationScope,
): LogRecord {
  let traceId = ''
  let spanId = ''
  let time = '0'
  let observed = '0'
  let severityNumber = 0
  let severityText: string | undefined
  let eventName = ''
  let body: AttributeValue = null
  const attributes: Attributes = {}
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case LOG_TIME:
      case LOG_OBSERVED_TIME: {
        r.fixed64(end)
        const value = uint64ToDecimal(r.lo, r.hi)
        if (tag === LOG_TIME) time = value
        else observed = value
        break
      }
      case LOG_SEVERITY_NUMBER:
        severityNumber = r.int32(end)
        break
      case LOG_SEVERITY_TEXT:
        severityText = r.string(r.lengthEnd(end)) || undefined
        break
      case LOG_BODY:
        body = readAnyValue(r, r.lengthEnd(end), 0)
        break
      case LOG_ATTRIBUTES:
        readKeyValue(r, r.lengthEnd(end), attributes, 0)
        break
      case LOG_TRACE_ID:
        traceId = readOptionalId(r, end, TRACE_ID_BYTES, 'trace_id')
        break
      case LOG_SPAN_ID:
        spanId = readOptionalId(r, end, SPAN_ID_BYTES, 'span_id')
        break
      case LOG_EVENT_NAME:
        eventName = r.string(r.lengthEnd(end))
        break
      default:
        r.skip(tag, end)
    }
  }
  const record: LogRecord = {
    traceId,
    spanId,
    timeUnixNano: time,
    observedTimeUnixNano: observed,
    severityNumber: severityNumber >= 0 && severityNumber <= 24 ? severityNumber : 0,
    eventName: eventNameOf(eventName, attributes),
    body,
    attributes,
    resource,
    scope,
  }
  if (severityText !== undefined) record.severityText = severityText
  return record
}

/** A log record's trace or span id: empty or all zeros is none (''); any other length is an error. */
function readOptionalId(r: ProtobufReader, end: number, bytes: number, what: string): string {
  const idEnd = r.lengthEnd(end)
  if (idEnd === r.pos) return ''
  if (idEnd - r.pos !== bytes) {
    throw r.error('invalid_id', `${what} has ${idEnd - r.pos} bytes, expected ${bytes} or 0`, r.pos)
  }
  const id = bytes === TRACE_ID_BYTES ? r.traceId(idEnd) : r.hex(idEnd)
  return /^0+$/.test(id) ? '' : id
}
