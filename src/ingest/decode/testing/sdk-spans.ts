import {
  SpanKind as ApiSpanKind,
  context,
  type Link,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api'
import { TraceState } from '@opentelemetry/core'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import type { Attributes, Span, SpanKind, StatusCode } from '../../../model/span.ts'

/** Spans recorded by the real OpenTelemetry SDK: a small GenAI agent run with tools, events, links, errors. */
export function recordSdkSpans(): ReadableSpan[] {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'support-agent',
      'service.version': '1.2.3',
      'deployment.environment': 'prod',
      'host.cpu.count': 8,
    }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  })
  const tracer = provider.getTracer('gen_ai.test', '0.9.1')
  const other = provider.getTracer('tools-ü-scope')
  const messages = JSON.stringify([
    { role: 'system', parts: [{ type: 'text', content: 'You are a helpful agent. ✓ Ünïcödé 😀' }] },
    { role: 'user', parts: [{ type: 'text', content: 'Where is my order #123?' }] },
  ])
  const remote = trace.setSpanContext(context.active(), {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  })
  const root = tracer.startSpan(
    'invoke_agent support',
    {
      kind: ApiSpanKind.INTERNAL,
      startTime: [1747872000, 123456789],
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'support',
        'gen_ai.input.messages': messages,
        'gen_ai.usage.input_tokens': 812,
        'gen_ai.request.temperature': 0.25,
        'gen_ai.request.stream': false,
        'gen_ai.response.finish_reasons': ['stop', 'tool_calls'],
        'int.array': [1, -2, 3],
        'double.array': [1.5, -0.25],
        'bool.array': [true, false],
        'empty.string': '',
        'negative.int': -42,
      },
    },
    remote,
  )
  const rootCtx = trace.setSpan(context.active(), root)
  const chat = tracer.startSpan(
    'chat gpt-4o',
    { kind: ApiSpanKind.CLIENT, startTime: [1747872000, 200000000] },
    rootCtx,
  )
  chat.addEvent('gen_ai.content.prompt', { 'gen_ai.prompt': 'hi' }, [1747872000, 300000001])
  chat.addEvent('no attributes', [1747872000, 300000002])
  chat.setStatus({ code: SpanStatusCode.OK })
  chat.end([1747872001, 999999999])
  const links: Link[] = [
    {
      context: {
        traceId: 'ffeeddccbbaa99887766554433221100',
        spanId: '0011223344556677',
        traceFlags: TraceFlags.SAMPLED,
        traceState: new TraceState('vendor=a,other=b'),
      },
      attributes: { 'link.reason': 'follows', 'link.n': 7 },
    },
    { context: { traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: TraceFlags.NONE } },
  ]
  const tool = other.startSpan(
    'execute_tool lookup_order',
    { kind: ApiSpanKind.INTERNAL, startTime: [1747872002, 5], links },
    rootCtx,
  )
  tool.setAttribute('gen_ai.tool.call.arguments', '{"order":"123"}')
  tool.setStatus({ code: SpanStatusCode.ERROR, message: 'order service timed out ⏱' })
  tool.recordException(new Error('boom'), [1747872002, 6])
  tool.end([1747872002, 7])
  for (const kind of [ApiSpanKind.SERVER, ApiSpanKind.PRODUCER, ApiSpanKind.CONSUMER]) {
    tracer.startSpan(`kind ${kind}`, { kind, startTime: [1747872003, 0] }, rootCtx).end([1747872003, 1])
  }
  root.end([1747872009, 0])
  return exporter.getFinishedSpans()
}

function hrTimeToDecimal(time: readonly [number, number]): string {
  return (BigInt(time[0]) * 1_000_000_000n + BigInt(time[1])).toString()
}

/** The normalized span a correct decoder must produce for an SDK span. */
export function expectedSpan(span: ReadableSpan): Span {
  const ctx = span.spanContext()
  const status: Span['status'] = { code: span.status.code as StatusCode }
  if (span.status.message) status.message = span.status.message
  const scope: Span['scope'] = { name: span.instrumentationScope.name }
  if (span.instrumentationScope.version) scope.version = span.instrumentationScope.version
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    traceState: ctx.traceState?.serialize() || undefined,
    name: span.name,
    kind: (span.kind + 1) as SpanKind,
    startTimeUnixNano: hrTimeToDecimal(span.startTime),
    endTimeUnixNano: hrTimeToDecimal(span.endTime),
    attributes: { ...span.attributes } as Attributes,
    events: span.events.map((e) => ({
      name: e.name,
      timeUnixNano: hrTimeToDecimal(e.time),
      attributes: { ...(e.attributes ?? {}) } as Attributes,
    })),
    links: span.links.map((l) => ({
      traceId: l.context.traceId,
      spanId: l.context.spanId,
      traceState: l.context.traceState?.serialize() || undefined,
      attributes: { ...(l.attributes ?? {}) } as Attributes,
    })),
    status,
    resource: { ...span.resource.attributes } as Attributes,
    scope,
  }
}
