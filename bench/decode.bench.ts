/**
 * Decoder benchmark: spans/s of our OTLP protobuf decoder against V8's native `JSON.parse` of the
 * same request in OTLP/JSON (the baseline, measured in the same run), and of our OTLP/JSON decoder
 * (parse + normalize) against plain `JSON.parse`. Rates are per CPU second, subject and baseline
 * interleaved over several rounds, best round kept. Run with `npx tsx bench/decode.bench.ts`.
 */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { decodeOtlpTraces, OtlpDecodeError } from '../src/ingest/decode/index.ts'
import { listFixtures, loadFixture } from '../test/fixtures/index.ts'

/** One benchmark result: our throughput against the baseline's, in spans per second. */
export interface DecodeBenchRow {
  case: string
  subject: string
  baseline: string
  /** Spans decoded per call (over all records of the case). */
  spans: number
  payloadBytes: number
  subjectSpansPerSec: number
  baselineSpansPerSec: number
  /** subject / baseline: above 1 means faster than the baseline. */
  ratio: number
  /** The ratio the subject must reach (protobuf decoding: at least JSON.parse), or none (reported only). */
  target: string
  /** Whether the ratio reaches the target (undefined when there is none). */
  met: boolean | undefined
}

function record(build: (tracer: ReturnType<BasicTracerProvider['getTracer']>) => void): ReadableSpan[] {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'support-agent',
      'service.version': '2.4.1',
      'deployment.environment.name': 'production',
      'telemetry.sdk.language': 'nodejs',
      'telemetry.sdk.name': 'opentelemetry',
      'telemetry.sdk.version': '2.12.1',
      'host.name': 'ip-10-0-12-34',
      'process.pid': 4242,
    }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  })
  build(provider.getTracer('tracescore.bench', '1.0.0'))
  return exporter.getFinishedSpans()
}

const LOREM =
  'The customer reports that the order has not arrived after ten days. I checked the carrier status, ' +
  'which shows the parcel held at the regional depot because of an address mismatch. '

function text(chars: number, seed: number): string {
  let s = ''
  while (s.length < chars) s += `${LOREM}(${seed}/${s.length}) `
  return s.slice(0, chars)
}

/** Realistic GenAI agent runs: agent, chat and tool spans carrying several KB of JSON messages. */
function genAiSpans(runs: number, first: number): ReadableSpan[] {
  return record((tracer) => {
    for (let run = first; run < first + runs; run++) {
      const history = Array.from({ length: 6 }, (_, i) => ({
        role: i % 2 === 0 ? 'user' : 'assistant',
        parts: [{ type: 'text', content: text(500, run * 10 + i) }],
      }))
      const input = JSON.stringify([
        { role: 'system', parts: [{ type: 'text', content: text(800, run) }] },
        ...history,
      ])
      const output = JSON.stringify([
        {
          role: 'assistant',
          parts: [
            {
              type: 'tool_call',
              id: `call_${run}`,
              name: 'lookup_order',
              arguments: { orderId: `A-${run}` },
            },
            { type: 'text', content: text(1200, run + 1) },
          ],
          finish_reason: 'stop',
        },
      ])
      const agent = tracer.startSpan('invoke_agent support', {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': 'support',
          'gen_ai.agent.id': 'agent_7f3a',
          'gen_ai.conversation.id': `conv_${run}`,
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.input.messages': input,
          'gen_ai.output.messages': output,
          'gen_ai.usage.input_tokens': 2312,
          'gen_ai.usage.output_tokens': 412,
        },
      })
      const ctx = trace.setSpan(context.active(), agent)
      for (let step = 0; step < 2; step++) {
        const chat = tracer.startSpan(
          'chat gpt-4o',
          {
            kind: SpanKind.CLIENT,
            attributes: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.provider.name': 'openai',
              'gen_ai.request.model': 'gpt-4o',
              'gen_ai.response.model': 'gpt-4o-2024-08-06',
              'gen_ai.response.id': `chatcmpl-${run}-${step}`,
              'gen_ai.request.temperature': 0.2,
              'gen_ai.request.max_tokens': 1024,
              'gen_ai.response.finish_reasons': ['tool_calls'],
              'gen_ai.input.messages': input,
              'gen_ai.output.messages': output,
              'gen_ai.usage.input_tokens': 1200 + step,
              'gen_ai.usage.output_tokens': 80,
              'server.address': 'api.openai.com',
              'server.port': 443,
            },
          },
          ctx,
        )
        chat.end()
        const tool = tracer.startSpan(
          'execute_tool lookup_order',
          {
            kind: SpanKind.INTERNAL,
            attributes: {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': 'lookup_order',
              'gen_ai.tool.call.id': `call_${run}_${step}`,
              'gen_ai.tool.type': 'function',
              'gen_ai.tool.call.arguments': JSON.stringify({
                orderId: `A-${run}`,
                include: ['status', 'events'],
              }),
              'gen_ai.tool.call.result': JSON.stringify({
                status: 'held',
                events: Array.from({ length: 8 }, (_, i) => ({
                  at: `2026-11-${10 + i}T10:00:00Z`,
                  what: text(60, i),
                })),
              }),
            },
          },
          ctx,
        )
        tool.end()
      }
      agent.setStatus({ code: SpanStatusCode.OK })
      agent.end()
    }
  })
}

/** Small spans: HTTP/DB-style, a handful of short attributes each. */
function smallSpans(count: number, first: number): ReadableSpan[] {
  return record((tracer) => {
    for (let i = first; i < first + count; i++) {
      tracer
        .startSpan(`GET /api/orders/{id}`, {
          kind: SpanKind.SERVER,
          attributes: {
            'http.request.method': 'GET',
            'http.route': '/api/orders/{id}',
            'http.response.status_code': 200,
            'url.path': `/api/orders/${i}`,
            'server.address': 'orders.internal',
            'network.protocol.version': '1.1',
            'user_agent.original': 'node-fetch/1.0',
          },
        })
        .end()
    }
  })
}

/** One benchmark case: the same spans as protobuf and as OTLP/JSON requests (one or more records). */
export interface DecodeBenchPayload {
  name: string
  spans: number
  proto: Uint8Array[]
  json: string[]
}

/**
 * Records of one synthetic case. Each record has its own ids and values (conversation ids, response
 * ids, url paths...), and there are enough records that their distinct short values outnumber the
 * decoder's string cache: the benchmark must not replay values the cache already holds.
 */
function syntheticCase(
  name: string,
  records: number,
  build: (first: number) => ReadableSpan[],
): DecodeBenchPayload {
  const proto: Uint8Array[] = []
  const json: string[] = []
  let spans = 0
  for (let r = 0; r < records; r++) {
    const recorded = build(r * 1000)
    spans += recorded.length
    proto.push(ProtobufTraceSerializer.serializeRequest(recorded)!)
    json.push(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(recorded)!))
  }
  return { name, spans, proto, json }
}

/** The benchmark payloads (exported for profiling). */
export function decodeBenchPayloads(): DecodeBenchPayload[] {
  const cases = [
    // 20 agent runs (100 spans) per record, 5 distinct short ids per run: 8000 in all.
    syntheticCase('genai (agent/chat/tool, KB messages)', 80, (first) => genAiSpans(20, first)),
    // 500 spans per record, one distinct url.path each: 12000 in all.
    syntheticCase('small (http, 7 short attributes)', 24, (first) => smallSpans(500, first)),
    // One span per record: the per-record cost (a Kafka record per span or per tiny trace).
    syntheticCase('tiny (1 small span per record)', 6000, (first) => smallSpans(1, first)),
  ]
  // Real agent traces (Mastra, AI SDK 6/7, OpenInference, GenAI) from the test fixtures, one record per trace.
  const fixtures = listFixtures().map((entry) => loadFixture(entry))
  if (fixtures.length > 0) {
    cases.push({
      name: `fixtures (${fixtures.length} real agent traces, 1 per record)`,
      spans: fixtures.reduce((n, f) => n + decodeOtlpTraces(f.proto).length, 0),
      proto: fixtures.map((f) => f.proto),
      json: fixtures.map((f) => f.json),
    })
  }
  return cases
}

/** Milliseconds of CPU time this process has used (robust against other processes on a shared machine). */
function cpuMs(): number {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

/** Runs `fn` repeatedly for about `ms` milliseconds of CPU time and returns calls per CPU second. */
function callsPerSecond(fn: () => unknown, ms: number): number {
  let calls = 0
  const start = cpuMs()
  let now = start
  while (now - start < ms) {
    for (let i = 0; i < 5; i++) fn()
    calls += 5
    now = cpuMs()
  }
  return (calls * 1000) / (now - start)
}

/** Interleaves subject and baseline over several rounds and keeps each one's best round. */
function compare(
  subject: () => unknown,
  baseline: () => unknown,
  roundMs: number,
  rounds: number,
): [number, number] {
  callsPerSecond(subject, roundMs)
  callsPerSecond(baseline, roundMs)
  let best = [0, 0] as [number, number]
  for (let r = 0; r < rounds; r++) {
    best = [
      Math.max(best[0], callsPerSecond(subject, roundMs)),
      Math.max(best[1], callsPerSecond(baseline, roundMs)),
    ]
  }
  return best
}

/** Runs the decoder benchmark and returns one row per comparison, then the hostile-input rows. */
export function run(
  options: { roundMs?: number; rounds?: number } = {},
): (DecodeBenchRow | HostileDecodeRow)[] {
  return [...throughputRows(options), ...hostileRows()]
}

/** Throughput of our decoders against `JSON.parse`, one row per case and encoding. */
function throughputRows(options: { roundMs?: number; rounds?: number }): DecodeBenchRow[] {
  const roundMs = options.roundMs ?? 150
  const rounds = options.rounds ?? 10
  const rows: DecodeBenchRow[] = []
  for (const c of decodeBenchPayloads()) {
    const { proto, json } = c
    const n = c.spans
    const count = (payloads: (Uint8Array | string)[]) =>
      payloads.reduce((k, p) => k + decodeOtlpTraces(p).length, 0)
    if (count(proto) !== n || count(json) !== n) throw new Error(`${c.name}: wrong span count`)
    const parse = () => {
      for (const text of json) JSON.parse(text)
    }
    const decodeProto = () => {
      for (const bytes of proto) decodeOtlpTraces(bytes, 'otlp_proto')
    }
    const decodeJson = () => {
      for (const text of json) decodeOtlpTraces(text, 'otlp_json')
    }
    const [protoRate, parseRate] = compare(decodeProto, parse, roundMs, rounds)
    rows.push({
      case: c.name,
      subject: 'decodeOtlpTraces(otlp_proto)',
      baseline: 'JSON.parse(otlp_json text)',
      spans: n,
      payloadBytes: proto.reduce((k, p) => k + p.length, 0),
      subjectSpansPerSec: protoRate * n,
      baselineSpansPerSec: parseRate * n,
      ratio: protoRate / parseRate,
      target: '>= 1.0',
      met: protoRate / parseRate >= 1,
    })
    const [jsonRate, parseRate2] = compare(decodeJson, parse, roundMs, rounds)
    rows.push({
      case: c.name,
      subject: 'decodeOtlpTraces(otlp_json text)',
      baseline: 'JSON.parse(otlp_json text)',
      spans: n,
      payloadBytes: json.reduce((k, p) => k + p.length, 0),
      subjectSpansPerSec: jsonRate * n,
      baselineSpansPerSec: parseRate2 * n,
      ratio: jsonRate / parseRate2,
      target: 'reported only (includes JSON.parse)',
      met: undefined,
    })
  }
  return rows
}

/** One hostile-input class at doubling sizes: CPU time per 100 KB and how it grows per doubling. */
export interface HostileDecodeRow {
  case: string
  /** Payload sizes in bytes, each about twice the previous. */
  sizes: string
  /** CPU milliseconds per 100 KB of input at the largest size (target: at most 100). */
  msPer100KB: number
  /** Largest ratio of time between one size and the next (target: at most 2.5 per doubling). */
  growthPerDoubling: number
  target: string
  met: boolean
}

/** A protobuf request with one ResourceSpans of body `resourceSpansBody` (raw bytes, for hostile shapes). */
function protoWith(resourceSpansBody: Uint8Array): Uint8Array {
  return concat([field(1, resourceSpansBody)])
}

function varint(n: number): number[] {
  const out: number[] = []
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80)
    n = Math.floor(n / 128)
  }
  out.push(n)
  return out
}

/** A length-delimited field. */
function field(number: number, body: Uint8Array): Uint8Array {
  return concat([Uint8Array.from([(number << 3) | 2, ...varint(body.length)]), body])
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

const utf8 = (text: string) => new TextEncoder().encode(text)
/** A `KeyValue` message with a string value. */
const keyValue = (key: string, value: string) =>
  concat([field(1, utf8(key)), field(2, field(1, utf8(value)))])
const oneSpan = (spanBody: Uint8Array = new Uint8Array(0)) =>
  field(
    2,
    field(
      2,
      concat([field(1, new Uint8Array(16).fill(0xab)), field(2, new Uint8Array(8).fill(0xcd)), spanBody]),
    ),
  )

/** Hostile payloads of about `bytes` bytes, one generator per class (repeated resources: bench/hostile.bench.ts). */
const HOSTILE: [string, (bytes: number) => Uint8Array | string][] = [
  [
    'protobuf: one span, tiny attributes (lazy envelope, then all)',
    (bytes) => {
      const parts: Uint8Array[] = []
      for (let i = 0, n = 0; n < bytes; i++, n += parts[parts.length - 1]!.length)
        parts.push(field(9, keyValue(`a${i}`, 'x')))
      return protoWith(oneSpan(concat(parts)))
    },
  ],
  [
    'protobuf: one key repeated (duplicate attributes)',
    (bytes) => {
      const unit = field(9, keyValue('gen_ai.operation.name', 'chat'))
      return protoWith(oneSpan(concat(Array.from({ length: Math.ceil(bytes / unit.length) }, () => unit))))
    },
  ],
  [
    'protobuf: arrays nested to the depth limit, repeated',
    (bytes) => {
      let value = field(1, new Uint8Array(0))
      for (let d = 0; d < 120; d++) value = field(5, field(1, value))
      const unit = field(9, concat([field(1, utf8('deep')), field(2, value)]))
      return protoWith(oneSpan(concat(Array.from({ length: Math.ceil(bytes / unit.length) }, () => unit))))
    },
  ],
  [
    'protobuf: many empty spans',
    (bytes) => {
      const unit = field(
        2,
        concat([field(1, new Uint8Array(16).fill(1)), field(2, new Uint8Array(8).fill(2))]),
      )
      return protoWith(field(2, concat(Array.from({ length: Math.ceil(bytes / unit.length) }, () => unit))))
    },
  ],
  ['text (rejected as not OTLP)', (bytes) => utf8(`${'lorem ipsum dolor sit amet '.repeat(bytes / 27)}`)],
  [
    'OTLP/JSON: huge digit strings as times (rejected)',
    (bytes) =>
      JSON.stringify({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  { traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), startTimeUnixNano: '9'.repeat(bytes) },
                ],
              },
            ],
          },
        ],
      }),
  ],
  [
    'OTLP/JSON: many attributes',
    (bytes) => {
      const attributes = Array.from({ length: Math.ceil(bytes / 40) }, (_, i) => ({
        key: `a${i}`,
        value: { stringValue: 'x' },
      }))
      return JSON.stringify({
        resourceSpans: [
          { scopeSpans: [{ spans: [{ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), attributes }] }] },
        ],
      })
    },
  ],
]

/** Decodes (and reads every attribute of) a payload; rejections are part of the work measured. */
function decodeHostile(payload: Uint8Array | string): void {
  try {
    for (const span of decodeOtlpTraces(payload)) Object.keys(span.attributes)
  } catch (error) {
    if (!(error instanceof OtlpDecodeError)) throw error
  }
}

/** Hostile inputs at 256 KB, 512 KB and 1 MB: CPU ms per 100 KB, and the growth per doubling. */
export function hostileRows(): HostileDecodeRow[] {
  return HOSTILE.map(([name, make]) => {
    const sizes = [256 * 1024, 512 * 1024, 1024 * 1024]
    const ms = sizes.map((size) => {
      const payload = make(size)
      let best = Infinity
      for (let round = 0; round < 5; round++) {
        const start = cpuMs()
        decodeHostile(payload)
        best = Math.min(best, cpuMs() - start)
      }
      return { bytes: payload.length, ms: Math.max(best, 0.05) }
    })
    const largest = ms[ms.length - 1]!
    const msPer100KB = (largest.ms * 100 * 1024) / largest.bytes
    let growth = 0
    for (let i = 1; i < ms.length; i++) growth = Math.max(growth, ms[i]!.ms / ms[i - 1]!.ms)
    return {
      case: `hostile: ${name}`,
      sizes: ms.map((m) => `${Math.round(m.bytes / 1024)} KB`).join(', '),
      msPer100KB,
      growthPerDoubling: growth,
      target: '<= 100 ms per 100 KB, <= 2.5x per doubling',
      met: msPer100KB <= 100 && growth <= 2.5,
    }
  })
}

/** Prints the rows as a table. */
export function printRows(rows: DecodeBenchRow[]): void {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
  console.log(['case', 'subject', 'spans/s', 'baseline', 'spans/s', 'ratio', 'bytes'].join(' | '))
  for (const r of rows) {
    console.log(
      [
        r.case,
        r.subject,
        fmt(r.subjectSpansPerSec),
        r.baseline,
        fmt(r.baselineSpansPerSec),
        `${r.ratio.toFixed(2)}x`,
        r.met === undefined ? '-' : `${r.target} ${r.met ? 'met' : 'MISSED'}`,
        fmt(r.payloadBytes),
      ].join(' | '),
    )
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printRows(throughputRows({}))
  for (const row of hostileRows()) {
    console.log(
      `${row.case} | ${row.sizes} | ${row.msPer100KB.toFixed(2)} ms per 100 KB | ` +
        `${row.growthPerDoubling.toFixed(2)}x per doubling | ${row.met ? 'met' : 'MISSED'}`,
    )
  }
}
