/**
 * Production-like traffic for tests and benchmarks: agent runs among plain HTTP/DB traces, and
 * records of it as the Collector's Kafka exporter writes them by default (multi-trace OTLP
 * protobuf batches with null keys, spread over the partitions, so one trace's spans land on
 * several partitions).
 */
import { context, SpanKind, trace } from '@opentelemetry/api'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import {
  chunks,
  encodeOtlpProto,
  generateAgentTraffic,
  seededRandom,
} from '../../src/ingest/testing/agent-traffic.ts'

/**
 * HTTP/DB traces as a web service exports them: a server span, a database query and a call to
 * another service, each with the attributes their OpenTelemetry instrumentations record.
 */
export function httpDbTraces(count: number, seed: number): ReadableSpan[] {
  const random = seededRandom(seed)
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'orders-api', 'service.version': '3.2.0' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  })
  const tracer = provider.getTracer('@opentelemetry/instrumentation-http', '0.57.0')
  for (let i = 0; i < count; i++) {
    const t = Date.UTC(2026, 10, 30, 9) + i * 100
    const id = Math.floor(random() * 1e6)
    const root = tracer.startSpan('GET /api/orders/{id}', {
      kind: SpanKind.SERVER,
      startTime: t,
      attributes: {
        'http.request.method': 'GET',
        'http.route': '/api/orders/{id}',
        'url.path': `/api/orders/${id}`,
        'url.scheme': 'https',
        'http.response.status_code': 200,
        'server.address': 'orders.internal',
        'server.port': 8443,
        'user_agent.original': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36',
        'client.address': `10.0.${id % 255}.${id % 7}`,
      },
    })
    const ctx = trace.setSpan(context.active(), root)
    const query =
      'SELECT o.id, o.status, o.total FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = $1'
    const db = {
      'db.system': 'postgresql',
      'db.namespace': 'orders',
      'db.query.text': query,
      'server.port': 5432,
    }
    tracer
      .startSpan('SELECT orders', { kind: SpanKind.CLIENT, startTime: t + 1, attributes: db }, ctx)
      .end(t + 4)
    const call = { 'http.request.method': 'GET', 'url.full': `https://inventory.internal/api/stock/${id}` }
    tracer.startSpan('GET', { kind: SpanKind.CLIENT, startTime: t + 5, attributes: call }, ctx).end(t + 9)
    root.end(t + 10)
  }
  return exporter.getFinishedSpans()
}

/** `runs` agent runs (5 spans each), as their SDK exports them, 1,000 runs per seed. */
export const genAiTraffic = (seed: number): ReadableSpan[] => generateAgentTraffic({ runs: 1000, seed }).spans

/** Production-like: 1,000 traces per seed, one agent run (5 spans) among nine HTTP/DB traces (3 spans). */
export function mixedTraffic(seed: number): ReadableSpan[] {
  const agents = generateAgentTraffic({ runs: 100, seed }).runs
  const plain = httpDbTraces(900, seed)
  return agents.flatMap((run, i) => [...run.spans, ...plain.slice(i * 27, (i + 1) * 27)])
}

/** One record to produce: its partition and value, no key. */
export interface NullKeyedRecord {
  partition: number
  value: Buffer
}

/** How `nullKeyedRecords` batches the spans. */
export interface NullKeyedOptions {
  partitions: number
  spansPerRecord: number
  /**
   * Traces exported at the same time: their spans are interleaved (span 1 of each, then span 2...),
   * as an SDK's batch processor mixes concurrent requests. Default 8.
   */
  concurrency?: number
}

/**
 * The spans as null-keyed records: traces taken `concurrency` at a time with their spans
 * interleaved, cut into records of `spansPerRecord` spans, record i on partition i % partitions
 * (the exporter's default spreads records, not traces): most traces straddle two or more records,
 * hence partitions.
 */
export function nullKeyedRecords(
  spans: readonly ReadableSpan[],
  options: NullKeyedOptions,
): NullKeyedRecord[] {
  const traces = new Map<string, ReadableSpan[]>()
  for (const span of spans) {
    const id = span.spanContext().traceId
    const list = traces.get(id)
    if (list === undefined) traces.set(id, [span])
    else list.push(span)
  }
  const ordered: ReadableSpan[] = []
  for (const group of chunks([...traces.values()], options.concurrency ?? 8)) {
    const longest = Math.max(...group.map((g) => g.length))
    for (let k = 0; k < longest; k++)
      for (const spansOfTrace of group) if (k < spansOfTrace.length) ordered.push(spansOfTrace[k]!)
  }
  return chunks(ordered, options.spansPerRecord).map((batch, i) => ({
    partition: i % options.partitions,
    value: encodeOtlpProto(batch),
  }))
}
