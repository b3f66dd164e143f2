/**
 * Helpers for end-to-end tests against the local Jaeger started by `bash scripts/jaeger-start.sh`
 * (v1.76.0 all-in-one, in-memory storage): `JAEGER_URL` (default http://127.0.0.1:16686) is its
 * query API, and its OTLP/HTTP receiver listens on the query port + 2 (`JAEGER_OTLP_URL` overrides).
 *
 * `GET /api/traces/<trace id>` answers `{ data: [JaegerTrace] }`, or 404 with
 * `{ data: null, errors: [{ code: 404, msg: 'trace not found' }] }` before the trace is stored.
 * Span times are microseconds; OTLP attributes become `tags` typed `string`, `bool`, `int64`,
 * `float64` (a double attribute stays `float64` even when whole); the parent is a `CHILD_OF`
 * reference; the resource becomes the span's process (`serviceName` + tags).
 */

/** Base URL of the query API. */
export function jaegerUrl(): string {
  return (process.env.JAEGER_URL ?? 'http://127.0.0.1:16686').replace(/\/+$/, '')
}

/** Base URL of the OTLP/HTTP receiver (POST `<url>/v1/traces`). */
export function jaegerOtlpUrl(): string {
  if (process.env.JAEGER_OTLP_URL) return process.env.JAEGER_OTLP_URL.replace(/\/+$/, '')
  const url = new URL(jaegerUrl())
  return `${url.protocol}//${url.hostname}:${Number(url.port) + 2}`
}

export interface JaegerTag {
  key: string
  type: 'string' | 'bool' | 'int64' | 'float64' | 'binary'
  value: unknown
}

export interface JaegerSpan {
  traceID: string
  spanID: string
  operationName: string
  references: { refType: 'CHILD_OF' | 'FOLLOWS_FROM'; traceID: string; spanID: string }[]
  startTime: number
  duration: number
  tags: JaegerTag[]
  logs: { timestamp: number; fields: JaegerTag[] }[]
  processID: string
}

export interface JaegerTrace {
  traceID: string
  spans: JaegerSpan[]
  processes: Record<string, { serviceName: string; tags: JaegerTag[] }>
}

/** One trace, or undefined while Jaeger has not stored it. */
export async function getJaegerTrace(traceId: string): Promise<JaegerTrace | undefined> {
  const res = await fetch(`${jaegerUrl()}/api/traces/${traceId}`, { signal: AbortSignal.timeout(10_000) })
  if (res.status === 404) return undefined
  const text = await res.text()
  if (!res.ok) throw new Error(`GET /api/traces/${traceId} -> ${res.status}: ${text.slice(0, 500)}`)
  return (JSON.parse(text) as { data: JaegerTrace[] }).data[0]
}

/** The parent span id of a span (its CHILD_OF reference), or undefined for a root. */
export const jaegerParent = (span: JaegerSpan): string | undefined =>
  span.references.find((r) => r.refType === 'CHILD_OF')?.spanID

/** A span's tag by key. */
export const jaegerTag = (span: JaegerSpan, key: string): JaegerTag | undefined =>
  span.tags.find((t) => t.key === key)
