/** A span read back from an OTLP/JSON export request, attributes flattened to plain values. */
export interface DecodedSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  startTimeUnixNano: string
  endTimeUnixNano: string
  attributes: Record<string, unknown>
  events: { name: string; timeUnixNano: string; attributes: Record<string, unknown> }[]
  links: { traceId: string; spanId: string }[]
  status: { code?: number; message?: string }
  resource: Record<string, unknown>
  scope: { name?: string; version?: string }
}

type KeyValue = { key: string; value: Record<string, unknown> }

/** Flattens an OTLP/JSON `ExportTraceServiceRequest` (as the JSON exporter writes it) into spans. */
export function decodeOtlpJsonSpans(request: unknown): DecodedSpan[] {
  const spans: DecodedSpan[] = []
  for (const rs of (request as { resourceSpans?: any[] }).resourceSpans ?? []) {
    const resource = toRecord(rs.resource?.attributes)
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        spans.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId || undefined,
          name: s.name,
          kind: s.kind,
          startTimeUnixNano: String(s.startTimeUnixNano),
          endTimeUnixNano: String(s.endTimeUnixNano),
          attributes: toRecord(s.attributes),
          events: (s.events ?? []).map((e: any) => ({
            name: e.name,
            timeUnixNano: String(e.timeUnixNano),
            attributes: toRecord(e.attributes),
          })),
          links: (s.links ?? []).map((l: any) => ({ traceId: l.traceId, spanId: l.spanId })),
          status: s.status ?? {},
          resource,
          scope: { name: ss.scope?.name, version: ss.scope?.version },
        })
      }
    }
  }
  return spans
}

function toRecord(attributes: KeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const { key, value } of attributes ?? []) out[key] = anyValue(value)
  return out
}

function anyValue(value: Record<string, unknown>): unknown {
  if ('stringValue' in value) return value.stringValue
  if ('boolValue' in value) return value.boolValue
  if ('intValue' in value) return Number(value.intValue)
  if ('doubleValue' in value) return value.doubleValue
  return value
}
