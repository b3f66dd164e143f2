/**
 * Test and benchmark traffic: agent traces made with the real OpenTelemetry SDK
 * (`@opentelemetry/sdk-trace-base`), serialized into the Kafka record values the Collector's Kafka
 * exporter writes (OTLP `ExportTraceServiceRequest`, protobuf or JSON).
 */
import { type Context, context, SpanKind, type Tracer, trace } from '@opentelemetry/api'
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { groupByTrace, type Span } from '../../model/index.ts'

/** One generated agent run: its trace and agent span, and every span of the trace. */
export interface GeneratedRun {
  traceId: string
  agentSpanId: string
  spans: ReadableSpan[]
}

/** Generated traffic: agent runs, plus traces that hold no agent run. */
export interface AgentTraffic {
  runs: GeneratedRun[]
  /** Traces without an agent span (plain HTTP requests), which must still be finished. */
  plainTraces: ReadableSpan[][]
  /** Every span, trace after trace, children before parents (the order SDKs export them). */
  spans: ReadableSpan[]
}

/** The agent-run predicate for generated traffic (GenAI `invoke_agent` spans). */
export const isGeneratedAgentSpan = (span: Span): boolean =>
  span.attributes['gen_ai.operation.name'] === 'invoke_agent'

/** Deterministic pseudo-random numbers (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const words = 'the agent looked up weather forecast tool result city rain sunny temperature user asked'.split(
  ' ',
)
const text = (random: () => number, n: number) =>
  Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(' ')

const chat = (tracer: Tracer, parent: Context, random: () => number, t: number, contentWords: number) => {
  const span = tracer.startSpan(
    'chat gpt-5-mini',
    {
      kind: SpanKind.CLIENT,
      startTime: t,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-5-mini',
        'gen_ai.usage.input_tokens': Math.floor(random() * 2000),
        'gen_ai.usage.output_tokens': Math.floor(random() * 500),
        'gen_ai.input.messages': JSON.stringify([
          { role: 'user', parts: [{ type: 'text', content: text(random, contentWords) }] },
        ]),
        'gen_ai.output.messages': JSON.stringify([
          {
            role: 'assistant',
            parts: [{ type: 'text', content: text(random, contentWords) }],
            finish_reason: 'stop',
          },
        ]),
      },
    },
    parent,
  )
  span.end(t + 40)
}

/**
 * Generates `runs` agent runs (an `invoke_agent` span with chat and tool children, each in its
 * own trace) and `plainTraces` traces without agents. `contentWords` sizes the message texts.
 */
export function generateAgentTraffic({
  runs,
  plainTraces = 0,
  toolsPerRun = 2,
  contentWords = 40,
  seed = 1,
}: {
  runs: number
  plainTraces?: number
  toolsPerRun?: number
  contentWords?: number
  seed?: number
}): AgentTraffic {
  const random = seededRandom(seed)
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'weather-agent', 'service.version': '1.0.0' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  })
  const tracer = provider.getTracer('tracescore-traffic', '1.0.0')
  const result: AgentTraffic = { runs: [], plainTraces: [], spans: [] }
  const base = Date.UTC(2026, 10, 30, 9, 0, 0)
  for (let i = 0; i < runs; i++) {
    const t = base + i * 1000
    const agent = tracer.startSpan('invoke_agent weather', {
      kind: SpanKind.INTERNAL,
      startTime: t,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'weather',
        'gen_ai.conversation.id': `conv-${i}`,
      },
    })
    const parent = trace.setSpan(context.active(), agent)
    for (let k = 0; k < toolsPerRun; k++) {
      const t0 = t + 10 + k * 100
      chat(tracer, parent, random, t0, contentWords)
      const tool = tracer.startSpan(
        'execute_tool get_weather',
        {
          kind: SpanKind.INTERNAL,
          startTime: t0 + 50,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'get_weather',
            'gen_ai.tool.call.id': `call-${i}-${k}`,
            'gen_ai.tool.call.arguments': JSON.stringify({ city: text(random, 1) }),
            'gen_ai.tool.call.result': JSON.stringify({ forecast: text(random, 8) }),
          },
        },
        parent,
      )
      tool.end(t0 + 90)
    }
    agent.end(t + 900)
    const spans = exporter.getFinishedSpans()
    exporter.reset()
    const { traceId, spanId } = agent.spanContext()
    result.runs.push({ traceId, agentSpanId: spanId, spans })
    result.spans.push(...spans)
  }
  for (let i = 0; i < plainTraces; i++) {
    const t = base + i * 1000
    const root = tracer.startSpan('GET /health', { kind: SpanKind.SERVER, startTime: t })
    tracer.startSpan('db.query', { startTime: t + 1 }, trace.setSpan(context.active(), root)).end(t + 2)
    root.end(t + 3)
    const spans = exporter.getFinishedSpans()
    exporter.reset()
    result.plainTraces.push(spans)
    result.spans.push(...spans)
  }
  return result
}

/** Shuffles a copy of `items` deterministically. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = seededRandom(seed)
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/** Splits `items` into chunks of `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/** An `ExportTraceServiceRequest` in protobuf, as the Collector's `otlp_proto` encoding writes it. */
export function encodeOtlpProto(spans: ReadableSpan[]): Buffer {
  const bytes = ProtobufTraceSerializer.serializeRequest(spans)
  if (bytes === undefined) throw new Error('serialization failed')
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** The same request in OTLP/JSON (`otlp_json`). */
export function encodeOtlpJson(spans: ReadableSpan[]): Buffer {
  const bytes = JsonTraceSerializer.serializeRequest(spans)
  if (bytes === undefined) throw new Error('serialization failed')
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** Groups spans by trace id, in first-seen order (what `partition_traces_by_id` splits a batch into). */
export function byTrace(spans: readonly ReadableSpan[]): Map<string, ReadableSpan[]> {
  return groupByTrace(spans, (span) => span.spanContext().traceId)
}
