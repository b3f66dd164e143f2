/**
 * Helpers for end-to-end tests against the local Arize Phoenix started by
 * `bash scripts/phoenix-start.sh` (arize-phoenix 20.26.1 from PyPI, 127.0.0.1:6006;
 * `PHOENIX_URL` overrides).
 *
 * What the real server (20.26.1) does — verified by test/e2e/phoenix-smoke.test.ts:
 *
 * Ingest: `POST {phoenixUrl()}/v1/traces` with OTLP **protobuf** only (use
 * `@opentelemetry/exporter-trace-otlp-proto`; JSON gets 415). Spans become readable a moment after
 * the export returns (inserts are batched): poll with `waitForSpans()`. The project is the
 * `x-project-name` header, else the resource attribute `openinference.project.name`, else `default`.
 * Projects are created on first ingest; reading a project that does not exist yet gives 404.
 *
 * `GET /v1/projects/{project}/spans` query: `limit` (default 100, max 1000), `cursor`, `sort`
 * (`id` | `start_time`), `order` (default `desc`: newest first), `start_time`/`end_time` (ISO),
 * and repeatable filters `trace_id`, `span_id`, `name`, `span_kind`, `status_code`, `attribute`
 * (`key:value`, value JSON-parsed), plus `parent_id` (`null` = roots only).
 * Response: `{ data: PhoenixSpan[], next_cursor: string | null }`, each span e.g.
 * ```json
 * { "id": "U3Bhbjo0", "name": "probe-parent",
 *   "context": { "trace_id": "d78293c8d0a2338e957e8524d64d7b27", "span_id": "f38579b2c01b6aec" },
 *   "span_kind": "AGENT", "parent_id": null,
 *   "start_time": "2026-11-30T10:03:50.596000+00:00", "end_time": "2026-11-30T10:03:50.622338+00:00",
 *   "status_code": "UNSET", "status_message": "",
 *   "attributes": { "gen_ai.operation.name": "invoke_agent", "x.num": 3 },
 *   "events": [ { "name": "hello", "timestamp": "…", "attributes": { "k": "v" } } ] }
 * ```
 * - ids are lowercase hex without 0x; `parent_id` is the parent's span id or null.
 * - `attributes` is a flat object keyed by the full dotted OTel key, values keep their JSON type
 *   (int/double/bool/string/arrays). Resource attributes are NOT included.
 * - `span_kind` is OpenInference's kind: the `openinference.span.kind` attribute when present
 *   (e.g. EVALUATOR), else inferred (a span with `gen_ai.operation.name=invoke_agent` came back as
 *   AGENT), else UNKNOWN. It is not the OTel SpanKind.
 * - `status_code` is OK | ERROR | UNSET, `status_message` "" when none.
 * - `GET …/spans/otlpv1` returns the same spans OTLP-shaped (not used here).
 *
 * Annotations: `POST /v1/span_annotations?sync=true` with
 * `{ data: [{ span_id, name, annotator_kind: 'LLM'|'CODE'|'HUMAN', result: { score?, label?, explanation? },
 * metadata?, identifier? }] }` answers `{ data: [{ id }] }` (404 `Spans with IDs … do not exist`
 * for an unknown span; without `sync=true` it is queued and answers before the insert).
 * Re-posting the same (name, span_id, identifier) updates the annotation in place.
 * `GET /v1/projects/{project}/span_annotations?span_ids=…` (repeatable; default `limit` 10!) returns
 * `{ data: [{ id, created_at, updated_at, source: 'API'|'APP', user_id, name, annotator_kind,
 * result: { label, score, explanation }, metadata, identifier, span_id }], next_cursor }`.
 */

/** Base URL of the local Phoenix: `PHOENIX_URL` or http://127.0.0.1:6006. */
export function phoenixUrl(): string {
  return (process.env.PHOENIX_URL ?? 'http://127.0.0.1:6006').replace(/\/+$/, '')
}

/** The OTLP/HTTP protobuf traces endpoint. */
export function phoenixTracesEndpoint(): string {
  return `${phoenixUrl()}/v1/traces`
}

export interface PhoenixSpan {
  id: string
  name: string
  context: { trace_id: string; span_id: string }
  span_kind: string
  parent_id: string | null
  start_time: string
  end_time: string
  status_code: 'OK' | 'ERROR' | 'UNSET'
  status_message: string
  attributes: Record<string, unknown>
  events: { name: string; timestamp: string; attributes: Record<string, unknown> }[]
}

export interface SpanQuery {
  traceId?: string | string[]
  spanId?: string | string[]
  name?: string | string[]
  parentId?: string | null
  /** Spans that start at or after this time (Phoenix' `start_time`). */
  startTime?: Date
  /** Spans that start before this time (Phoenix' `end_time`). */
  endTime?: Date
  limit?: number
}

export interface PhoenixAnnotationResult {
  label: string | null
  score: number | null
  explanation: string | null
}

export interface PhoenixSpanAnnotation {
  id: string
  created_at: string
  updated_at: string
  source: 'API' | 'APP'
  user_id: string | null
  name: string
  annotator_kind: 'LLM' | 'CODE' | 'HUMAN'
  result: PhoenixAnnotationResult | null
  metadata: Record<string, unknown> | null
  identifier: string
  span_id: string
}

const list = (v: string | string[] | undefined): string[] =>
  v === undefined ? [] : Array.isArray(v) ? v : [v]

async function getJson<T>(
  path: string,
  params: URLSearchParams,
): Promise<{ status: number; body: T | null; text: string }> {
  const res = await fetch(`${phoenixUrl()}${path}?${params}`, { signal: AbortSignal.timeout(10_000) })
  const text = await res.text()
  if (res.status === 404) return { status: 404, body: null, text }
  if (!res.ok) throw new Error(`GET ${path}?${params} -> ${res.status}: ${text.slice(0, 500)}`)
  return { status: res.status, body: JSON.parse(text) as T, text }
}

/**
 * Spans of a project (all pages, oldest first). A project that does not exist (yet) gives [].
 */
export async function getSpans(projectName = 'default', query: SpanQuery = {}): Promise<PhoenixSpan[]> {
  const spans: PhoenixSpan[] = []
  let cursor: string | null = null
  do {
    const params = new URLSearchParams({ limit: String(query.limit ?? 1000), sort: 'id', order: 'asc' })
    for (const t of list(query.traceId)) params.append('trace_id', t)
    for (const s of list(query.spanId)) params.append('span_id', s)
    for (const n of list(query.name)) params.append('name', n)
    if (query.parentId !== undefined) params.set('parent_id', query.parentId ?? 'null')
    if (query.startTime) params.set('start_time', query.startTime.toISOString())
    if (query.endTime) params.set('end_time', query.endTime.toISOString())
    if (cursor) params.set('cursor', cursor)
    const { body } = await getJson<{ data: PhoenixSpan[]; next_cursor: string | null }>(
      `/v1/projects/${encodeURIComponent(projectName)}/spans`,
      params,
    )
    if (!body) return []
    spans.push(...body.data)
    cursor = query.limit === undefined ? body.next_cursor : null
  } while (cursor)
  return spans
}

/**
 * Polls `getSpans()` until `predicate` holds (default: at least `minCount` spans, 1 by default)
 * and returns the spans; throws with what it saw after `timeoutMs` (default 30 s).
 */
export async function waitForSpans(
  projectName: string,
  query: SpanQuery & {
    minCount?: number
    predicate?: (spans: PhoenixSpan[]) => boolean
    timeoutMs?: number
  } = {},
): Promise<PhoenixSpan[]> {
  const { minCount = 1, predicate, timeoutMs = 30_000, ...q } = query
  const done = predicate ?? ((s: PhoenixSpan[]) => s.length >= minCount)
  const deadline = Date.now() + timeoutMs
  let last: PhoenixSpan[] = []
  for (;;) {
    last = await getSpans(projectName, q)
    if (done(last)) return last
    if (Date.now() > deadline) {
      throw new Error(
        `waitForSpans(${projectName}, ${JSON.stringify(q)}): condition not met after ${timeoutMs} ms; ` +
          `saw ${last.length} span(s): ${last.map((s) => s.name).join(', ')}`,
      )
    }
    await new Promise((r) => setTimeout(r, 300))
  }
}

/** Posts span annotations synchronously; returns their ids. */
export async function annotateSpans(
  annotations: {
    span_id: string
    name: string
    annotator_kind: 'LLM' | 'CODE' | 'HUMAN'
    result?: { score?: number; label?: string; explanation?: string }
    metadata?: Record<string, unknown>
    identifier?: string
  }[],
): Promise<string[]> {
  const res = await fetch(`${phoenixUrl()}/v1/span_annotations?sync=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ data: annotations }),
    signal: AbortSignal.timeout(10_000),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`POST /v1/span_annotations -> ${res.status}: ${text.slice(0, 500)}`)
  return (JSON.parse(text) as { data: { id: string }[] }).data.map((d) => d.id)
}

/** Annotations of the given spans (all pages). */
export async function getSpanAnnotations(
  projectName: string,
  spanIds: string[],
): Promise<PhoenixSpanAnnotation[]> {
  const out: PhoenixSpanAnnotation[] = []
  let cursor: string | null = null
  do {
    const params = new URLSearchParams({ limit: '1000' })
    for (const s of spanIds) params.append('span_ids', s)
    if (cursor) params.set('cursor', cursor)
    const { body } = await getJson<{ data: PhoenixSpanAnnotation[]; next_cursor: string | null }>(
      `/v1/projects/${encodeURIComponent(projectName)}/span_annotations`,
      params,
    )
    if (!body) return []
    out.push(...body.data)
    cursor = body.next_cursor
  } while (cursor)
  return out
}

export interface PhoenixTraceAnnotation extends Omit<PhoenixSpanAnnotation, 'span_id'> {
  trace_id: string
}

/**
 * Trace annotations of the given traces (all pages): `GET /v1/projects/{project}/trace_annotations`
 * with repeatable `trace_ids` (at most 1000 per request; this asks in chunks of 100).
 */
export async function getTraceAnnotations(
  projectName: string,
  traceIds: string[],
): Promise<PhoenixTraceAnnotation[]> {
  const out: PhoenixTraceAnnotation[] = []
  for (let start = 0; start < traceIds.length; start += 100) {
    let cursor: string | null = null
    do {
      const params = new URLSearchParams({ limit: '1000' })
      for (const t of traceIds.slice(start, start + 100)) params.append('trace_ids', t)
      if (cursor) params.set('cursor', cursor)
      const { body } = await getJson<{ data: PhoenixTraceAnnotation[]; next_cursor: string | null }>(
        `/v1/projects/${encodeURIComponent(projectName)}/trace_annotations`,
        params,
      )
      if (!body) return []
      out.push(...body.data)
      cursor = body.next_cursor
    } while (cursor)
  }
  return out
}

/** The server's version string (e.g. "20.26.1"). */
export async function phoenixVersion(): Promise<string> {
  const res = await fetch(`${phoenixUrl()}/arize_phoenix_version`, { signal: AbortSignal.timeout(5_000) })
  if (!res.ok) throw new Error(`GET /arize_phoenix_version -> ${res.status}`)
  return (await res.text()).trim()
}
