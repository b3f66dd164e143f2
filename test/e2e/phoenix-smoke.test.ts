/**
 * Smoke test of the local Phoenix (scripts/phoenix-start.sh): spans sent with the OTLP/HTTP protobuf
 * exporter come back through the REST API with the shape documented in test/helpers/phoenix.ts,
 * and span annotations can be written and read back.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { context, SpanStatusCode, trace } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { describe, expect, it } from 'vitest'
import { repoRoot, runScript, uniqueName } from '../helpers/kafka.ts'
import {
  annotateSpans,
  getSpanAnnotations,
  getSpans,
  phoenixTracesEndpoint,
  phoenixUrl,
  phoenixVersion,
  waitForSpans,
} from '../helpers/phoenix.ts'

/** Sends one parent (agent) span with one child through a real OTLP proto exporter. */
async function sendTrace(
  options: { headers?: Record<string, string>; resource?: Record<string, string> } = {},
) {
  const exporter = new OTLPTraceExporter({ url: phoenixTracesEndpoint(), headers: options.headers ?? {} })
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'phoenix-smoke', ...options.resource }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  })
  const tracer = provider.getTracer('phoenix-smoke')
  const parent = tracer.startSpan('invoke_agent smoke-agent', {
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'smoke-agent',
      'smoke.int': 42,
      'smoke.double': 0.25,
      'smoke.bool': true,
      'smoke.list': ['a', 'b'],
    },
  })
  const child = tracer.startSpan('execute_tool lookup', {}, trace.setSpan(context.active(), parent))
  child.addEvent('tool.result', { 'result.size': 3 })
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'lookup failed' })
  child.end()
  parent.end()
  await provider.forceFlush()
  await provider.shutdown()
  return {
    traceId: parent.spanContext().traceId,
    parentId: parent.spanContext().spanId,
    childId: child.spanContext().spanId,
  }
}

describe('local Phoenix', () => {
  it('start script is idempotent: a second start reuses the running server', async () => {
    const out = await runScript('phoenix-start.sh', { PHOENIX_PORT: new URL(phoenixUrl()).port || '80' })
    expect(out).toMatch(/reusing the Phoenix \S+ already running at http:\/\/127\.0\.0\.1:\d+/)
  })

  it('runs the pinned version', async () => {
    const pinned = /^PHOENIX_VERSION=(\S+)$/m.exec(
      readFileSync(join(repoRoot, 'scripts', 'lib', 'phoenix-env.sh'), 'utf8'),
    )?.[1]
    expect(pinned).toBeTruthy()
    expect(await phoenixVersion()).toBe(pinned)
  })

  it('stores OTLP protobuf spans and serves them on GET /v1/projects/default/spans', async () => {
    const ids = await sendTrace()
    const spans = await waitForSpans('default', { traceId: ids.traceId, minCount: 2 })
    expect(spans).toHaveLength(2)
    const parent = spans.find((s) => s.context.span_id === ids.parentId)
    const child = spans.find((s) => s.context.span_id === ids.childId)

    expect(parent).toMatchObject({
      name: 'invoke_agent smoke-agent',
      context: { trace_id: ids.traceId, span_id: ids.parentId },
      parent_id: null,
      span_kind: 'AGENT',
      status_code: 'UNSET',
      status_message: '',
      events: [],
    })
    // Flat dotted keys, JSON types kept; resource attributes are not part of the span.
    expect(parent?.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'smoke-agent',
      'smoke.int': 42,
      'smoke.double': 0.25,
      'smoke.bool': true,
      'smoke.list': ['a', 'b'],
    })
    expect(Date.parse(parent?.start_time ?? '')).toBeLessThanOrEqual(Date.parse(parent?.end_time ?? ''))

    expect(child).toMatchObject({
      name: 'execute_tool lookup',
      parent_id: ids.parentId,
      status_code: 'ERROR',
      status_message: 'lookup failed',
      events: [{ name: 'tool.result', attributes: { 'result.size': 3 } }],
    })
    expect(child?.span_kind).toBe('UNKNOWN')

    // Filters: one span by id, roots only.
    expect((await getSpans('default', { spanId: ids.childId })).map((s) => s.context.span_id)).toEqual([
      ids.childId,
    ])
    expect((await getSpans('default', { traceId: ids.traceId, parentId: null })).map((s) => s.name)).toEqual([
      'invoke_agent smoke-agent',
    ])
  })

  it('routes spans to a project by x-project-name header or openinference.project.name', async () => {
    const byHeader = uniqueName('smoke-project')
    const byResource = uniqueName('smoke-project')
    expect(await getSpans(byHeader)).toEqual([]) // not created yet: 404, read as no spans
    const a = await sendTrace({ headers: { 'x-project-name': byHeader } })
    const b = await sendTrace({ resource: { 'openinference.project.name': byResource } })
    expect(await waitForSpans(byHeader, { traceId: a.traceId, minCount: 2 })).toHaveLength(2)
    expect(await waitForSpans(byResource, { traceId: b.traceId, minCount: 2 })).toHaveLength(2)
    expect(await getSpans('default', { traceId: [a.traceId, b.traceId] })).toEqual([])
  })

  it('accepts protobuf only on /v1/traces (JSON gets 415)', async () => {
    const res = await fetch(`${phoenixUrl()}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [] }),
    })
    expect(res.status).toBe(415)
  })

  it('writes span annotations and reads them back; the same identifier updates in place', async () => {
    const ids = await sendTrace()
    await waitForSpans('default', { traceId: ids.traceId, minCount: 2 })

    const [id] = await annotateSpans([
      {
        span_id: ids.parentId,
        name: 'smoke-score',
        annotator_kind: 'CODE',
        result: { score: 0.75, label: 'pass', explanation: 'two of three checks' },
        metadata: { scorer: 'smoke' },
        identifier: 'smoke',
      },
    ])
    expect(id).toBeTruthy()
    const [annotation, ...rest] = await getSpanAnnotations('default', [ids.parentId])
    expect(rest).toEqual([])
    expect(annotation).toMatchObject({
      id,
      source: 'API',
      user_id: null,
      name: 'smoke-score',
      annotator_kind: 'CODE',
      result: { score: 0.75, label: 'pass', explanation: 'two of three checks' },
      metadata: { scorer: 'smoke' },
      identifier: 'smoke',
      span_id: ids.parentId,
    })
    expect(Number.isNaN(Date.parse(annotation?.created_at ?? ''))).toBe(false)

    const [again] = await annotateSpans([
      {
        span_id: ids.parentId,
        name: 'smoke-score',
        annotator_kind: 'CODE',
        result: { score: 0.1, label: 'fail' },
        identifier: 'smoke',
      },
    ])
    expect(again).toBe(id)
    const updated = await getSpanAnnotations('default', [ids.parentId])
    expect(updated).toHaveLength(1)
    expect(updated[0]?.result).toEqual({ score: 0.1, label: 'fail', explanation: null })

    await expect(
      annotateSpans([
        { span_id: '00000000000000ff', name: 'x', annotator_kind: 'CODE', result: { score: 1 } },
      ]),
    ).rejects.toThrow(/404/)
  })
})
