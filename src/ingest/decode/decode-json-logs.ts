import type { LogRecord } from '../../model/log-record.ts'
import type { Attributes } from '../../model/span.ts'
import { OtlpDecodeError } from './decode-error.ts'
import {
  anyValueOf,
  attributesOf,
  type Cursor,
  enumOf,
  fail,
  isObject,
  list,
  optionalIdOf,
  scopeOf,
  stringOf,
  timeOf,
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
  const cur: Cursor = { names: LOG_LEVELS, rs: -1, ss: -1, span: -1, inner: '' }
  if (!isObject(request)) {
    const got = request === null ? 'null' : Array.isArray(request) ? 'an array' : `a ${typeof request}`
    throw new OtlpDecodeError(
      'invalid_field',
      `expected an ExportLogsServiceRequest object at the top level, got ${got}`,
    )
  }
  const resourceLogs = list(request.resourceLogs, cur, '')
  let count = 0
  for (const rl of resourceLogs) {
    if (!isObject(rl)) continue
    for (const sl of Array.isArray(rl.scopeLogs) ? rl.scopeLogs : []) {
      if (isObject(sl) && Array.isArray(sl.logRecords)) count += sl.logRecords.length
    }
  }
  const share = count > 0 ? Math.round(payloadSize / count) : 0
  for (let i = 0; i < resourceLogs.length; i++) {
    cur.rs = i
    cur.ss = -1
    const rl = resourceLogs[i]
    if (!isObject(rl)) fail(cur, '', 'expected an object')
    let resource: Attributes = {}
    if (rl.resource !== undefined && rl.resource !== null) {
      if (!isObject(rl.resource)) fail(cur, 'resource', 'expected an object')
      resource = attributesOf(rl.resource.attributes, cur, 'resource.attributes', 0)
    }
    const scopeLogs = list(rl.scopeLogs, cur, 'scopeLogs')
    for (let j = 0; j < scopeLogs.length; j++) {
      cur.ss = j
      cur.span = -1
      const sl = scopeLogs[j]
      if (!isObject(sl)) fail(cur, '', 'expected an object')
      const scope = scopeOf(sl.scope, cur)
      const records = list(sl.logRecords, cur, 'logRecords')
      for (let k = 0; k < records.length; k++) {
        cur.span = k
        visit(logRecordOf(records[k], resource, scope, cur), share)
      }
    }
  }
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
