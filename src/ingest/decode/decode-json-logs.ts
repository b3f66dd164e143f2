import type { LogRecord } from '../../model/log-record.ts'
import type { Attributes } from '../../model/span.ts'
import {
  anyValueOf,
  attributesOf,
  type Cursor,
  enumOf,
  fail,
  isObject,
  optionalIdOf,
  stringOf,
  timeOf,
  walkOtlpJsonRequest,
} from './decode-json.ts'
import type { OtlpLogVisitor } from './log-visitor.ts'

const LOG_LEVELS = ['resourceLogs', 'scopeLogs', 'logRecords'] as const
/** `SEVERITY_NUMBER_*` names of the JSON mapping, by number (the enum is 0..24). */
const SEVERITY_NAMES: Record<string, number> = Object.fromEntries(
  [
    'UNSPECIFIED',
    ...['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'].flatMap((level) =>
      ['', '2', '3', '4'].map((n) => `${level}${n}`),
    ),
  ].map((name, i) => [`SEVERITY_NUMBER_${name}`, i]),
)

/**
 * Normalizes an already parsed OTLP/JSON `ExportLogsServiceRequest` and hands every log record to
 * `visit` with its share of `payloadSize`, under the span decoder's rules (ids in hex or base64,
 * times as exact decimals, values nested at most `MAX_VALUE_DEPTH`). Throws {@link OtlpDecodeError}
 * with the JSON path (`resourceLogs[0].scopeLogs[1].logRecords[2].traceId`) when it is not valid.
 */
export function visitOtlpJsonLogsRequest(request: unknown, visit: OtlpLogVisitor, payloadSize = 0): void {
  walkOtlpJsonRequest(
    request,
    'ExportLogsServiceRequest',
    LOG_LEVELS,
    payloadSize,
    (item, resource, scope, cur, share) => visit(logRecordOf(item, resource, scope, cur), share),
  )
}

function logRecordOf(
  value: unknown,
  resource: Attributes,
  scope: LogRecord['scope'],
  cur: Cursor,
): LogRecord {
  if (!isObject(value)) fail(cur, '', 'expected an object')
  const attributes = attributesOf(value.attributes, cur, 'attributes', 0)
  const record: LogRecord = {
    traceId: optionalIdOf(value.traceId, 16, cur, 'traceId') ?? '',
    spanId: optionalIdOf(value.spanId, 8, cur, 'spanId') ?? '',
    timeUnixNano: timeOf(value.timeUnixNano, cur, 'timeUnixNano'),
    observedTimeUnixNano: timeOf(value.observedTimeUnixNano, cur, 'observedTimeUnixNano'),
    severityNumber: enumOf(value.severityNumber, SEVERITY_NAMES, 24, cur, 'severityNumber'),
    eventName: eventNameOf(stringOf(value.eventName, cur, 'eventName'), attributes),
    body: anyValueOf(value.body, cur, 'body', 0),
    attributes,
    resource,
    scope,
  }
  const severityText = stringOf(value.severityText, cur, 'severityText')
  if (severityText) record.severityText = severityText
  return record
}

/** The record's event name: its own field, else the `event.name` attribute older SDKs write. */
export function eventNameOf(field: string, attributes: Attributes): string {
  if (field !== '') return field
  const attribute = attributes['event.name']
  return typeof attribute === 'string' ? attribute : ''
}
