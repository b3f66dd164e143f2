import type { Attributes, AttributeValue, InstrumentationScope, LogRecord, Span } from '../../model/index.ts'

type JsonValue = Record<string, unknown>

const anyValue = (value: AttributeValue): JsonValue => {
  if (typeof value === 'string') return { stringValue: value }
  if (typeof value === 'boolean') return { boolValue: value }
  if (typeof value === 'number')
    return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value }
  if (value === null) return {}
  if (value instanceof Uint8Array) return { bytesValue: Buffer.from(value).toString('base64') }
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } }
  return { kvlistValue: { values: keyValues(value) } }
}

const keyValues = (attributes: Attributes): JsonValue[] => {
  const out: JsonValue[] = []
  for (const key in attributes) out.push({ key, value: anyValue(attributes[key]!) })
  return out
}

const spanJson = (span: Span): JsonValue => {
  const out: JsonValue = { traceId: span.traceId, spanId: span.spanId }
  if (span.traceState !== undefined) out.traceState = span.traceState
  if (span.parentSpanId !== undefined) out.parentSpanId = span.parentSpanId
  out.name = span.name
  out.kind = span.kind
  out.startTimeUnixNano = span.startTimeUnixNano
  out.endTimeUnixNano = span.endTimeUnixNano
  out.attributes = keyValues(span.attributes)
  out.events = span.events.map((e) => ({
    timeUnixNano: e.timeUnixNano,
    name: e.name,
    attributes: keyValues(e.attributes),
  }))
  out.links = span.links.map((l) => {
    const link: JsonValue = { traceId: l.traceId, spanId: l.spanId, attributes: keyValues(l.attributes) }
    if (l.traceState !== undefined) link.traceState = l.traceState
    return link
  })
  out.status = span.status.message === undefined ? { code: span.status.code } : { ...span.status }
  return out
}

const scopeJson = (scope: InstrumentationScope): JsonValue => {
  const out: JsonValue = { name: scope.name }
  if (scope.version !== undefined) out.version = scope.version
  if (scope.attributes !== undefined) out.attributes = keyValues(scope.attributes)
  return out
}

/** Items grouped by resource, then scope (by identity: decoders share them within a batch). */
function byResourceAndScope<T extends { resource: Attributes; scope: InstrumentationScope }>(
  items: readonly T[],
): Map<Attributes, Map<InstrumentationScope, T[]>> {
  const byResource = new Map<Attributes, Map<InstrumentationScope, T[]>>()
  for (const item of items) {
    let scopes = byResource.get(item.resource)
    if (scopes === undefined) {
      scopes = new Map()
      byResource.set(item.resource, scopes)
    }
    const list = scopes.get(item.scope)
    if (list === undefined) scopes.set(item.scope, [item])
    else list.push(item)
  }
  return byResource
}

/**
 * Encodes normalized spans as one OTLP/JSON `ExportTraceServiceRequest` (ids in hex), grouping them
 * by resource and scope (by identity, as the decoder shares them between the spans of a batch).
 * Used by the repartition stage; a JS integer becomes `intValue`, other numbers `doubleValue`.
 */
export function encodeSpansAsOtlpJson(spans: readonly Span[]): string {
  const resourceSpans = [...byResourceAndScope(spans)].map(([resource, scopes]) => ({
    resource: { attributes: keyValues(resource) },
    scopeSpans: [...scopes].map(([scope, list]) => ({ scope: scopeJson(scope), spans: list.map(spanJson) })),
  }))
  return JSON.stringify({ resourceSpans })
}

const logRecordJson = (record: LogRecord): JsonValue => {
  const out: JsonValue = {
    timeUnixNano: record.timeUnixNano,
    observedTimeUnixNano: record.observedTimeUnixNano,
    severityNumber: record.severityNumber,
  }
  if (record.severityText !== undefined) out.severityText = record.severityText
  if (record.body !== null) out.body = anyValue(record.body)
  out.attributes = keyValues(record.attributes)
  if (record.traceId !== '') out.traceId = record.traceId
  if (record.spanId !== '') out.spanId = record.spanId
  if (record.eventName !== '') out.eventName = record.eventName
  return out
}

/**
 * Encodes normalized log records as one OTLP/JSON `ExportLogsServiceRequest` (ids in hex), grouped
 * by resource and scope as {@link encodeSpansAsOtlpJson} does spans: the repartition stage's logs.
 */
export function encodeLogRecordsAsOtlpJson(records: readonly LogRecord[]): string {
  const resourceLogs = [...byResourceAndScope(records)].map(([resource, scopes]) => ({
    resource: { attributes: keyValues(resource) },
    scopeLogs: [...scopes].map(([scope, list]) => ({
      scope: scopeJson(scope),
      logRecords: list.map(logRecordJson),
    })),
  }))
  return JSON.stringify({ resourceLogs })
}
