/**
 * Hostile Kafka record values for the fault tier: damaged copies of real OTLP records (truncated,
 * bit-flipped), random bytes, the wrong encoding, and valid-but-extreme requests written with a
 * small protobuf writer (a 10 MB attribute, a trace of 100,000 spans, deeply nested values).
 */
import { randomBytes } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { seededRandom } from '../../src/ingest/testing/agent-traffic.ts'

/** One hostile record value and what kind of damage it carries. */
export interface HostileRecord {
  kind: string
  value: Buffer
}

const varintLength = (n: number): number => {
  let len = 1
  while (n >= 0x80) {
    n = Math.floor(n / 128)
    len++
  }
  return len
}

/** A minimal protobuf writer: enough for OTLP trace requests. */
export class ProtoWriter {
  private chunks: Buffer[] = []
  varint(n: number): this {
    const bytes: number[] = []
    while (n >= 0x80) {
      bytes.push((n % 128) | 0x80)
      n = Math.floor(n / 128)
    }
    bytes.push(n)
    this.chunks.push(Buffer.from(bytes))
    return this
  }
  tag(field: number, wire: number): this {
    return this.varint(field * 8 + wire)
  }
  bytes(field: number, value: Buffer | string): this {
    const buf = typeof value === 'string' ? Buffer.from(value, 'utf8') : value
    this.tag(field, 2).varint(buf.length)
    this.chunks.push(buf)
    return this
  }
  message(field: number, build: (w: ProtoWriter) => void): this {
    const inner = new ProtoWriter()
    build(inner)
    return this.bytes(field, inner.finish())
  }
  fixed64(field: number, value: bigint): this {
    const buf = Buffer.alloc(8)
    buf.writeBigUInt64LE(value)
    this.tag(field, 1)
    this.chunks.push(buf)
    return this
  }
  uint(field: number, value: number): this {
    return this.tag(field, 0).varint(value)
  }
  finish(): Buffer {
    return Buffer.concat(this.chunks)
  }
}

/** A span for `otlpRequest`. */
export interface RawSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  startNs: bigint
  endNs: bigint
  /** String attributes, or a prebuilt `AnyValue` message. */
  attributes?: Record<string, string | { anyValue: Buffer }>
}

const keyValue = (w: ProtoWriter, field: number, key: string, value: string | { anyValue: Buffer }) =>
  w.message(field, (kv) => {
    kv.bytes(1, key)
    if (typeof value === 'string') kv.message(2, (av) => av.bytes(1, value))
    else kv.bytes(2, value.anyValue)
  })

/** An `ExportTraceServiceRequest` holding the spans under one resource and scope. */
export function otlpRequest(spans: RawSpan[], serviceName = 'hostile-agent'): Buffer {
  return new ProtoWriter()
    .message(1, (rs) => {
      rs.message(1, (res) => keyValue(res, 1, 'service.name', serviceName))
      rs.message(2, (ss) => {
        ss.message(1, (scope) => scope.bytes(1, 'fault-records'))
        for (const s of spans) {
          ss.message(2, (sp) => {
            sp.bytes(1, Buffer.from(s.traceId, 'hex')).bytes(2, Buffer.from(s.spanId, 'hex'))
            if (s.parentSpanId) sp.bytes(4, Buffer.from(s.parentSpanId, 'hex'))
            sp.bytes(5, s.name).uint(6, 1).fixed64(7, s.startNs).fixed64(8, s.endNs)
            for (const [k, v] of Object.entries(s.attributes ?? {})) keyValue(sp, 9, k, v)
          })
        }
      })
    })
    .finish()
}

/**
 * An `AnyValue` nested `depth` times (array_value → values → ...), around a string, written in one
 * pass (sizes computed inside-out first), so even 100,000 levels cost linear time.
 */
export function deeplyNestedAnyValue(depth: number, kind: 'array' | 'kvlist' = 'array'): Buffer {
  const leaf = new ProtoWriter().bytes(1, 'bottom').finish()
  // sizes[i]: size of the AnyValue at nesting level i (0 = leaf).
  const sizes = [leaf.length]
  // The container inside each AnyValue: ArrayValue{values: child}, or KeyValueList{values: KeyValue{key 'k', value: child}}.
  const inner = (s: number) => {
    if (kind === 'array') return 1 + varintLength(s) + s
    const kv = 4 + varintLength(s) + s
    return 1 + varintLength(kv) + kv
  }
  for (let i = 1; i <= depth; i++) {
    const container = inner(sizes[i - 1]!)
    sizes.push(1 + varintLength(container) + container)
  }
  const out = Buffer.alloc(sizes[depth]!)
  let at = 0
  const putVarint = (n: number) => {
    while (n >= 0x80) {
      out[at++] = (n % 128) | 0x80
      n = Math.floor(n / 128)
    }
    out[at++] = n
  }
  for (let i = depth; i >= 1; i--) {
    const child = sizes[i - 1]!
    if (kind === 'array') {
      out[at++] = (5 << 3) | 2 // AnyValue.array_value
      putVarint(1 + varintLength(child) + child)
      out[at++] = (1 << 3) | 2 // ArrayValue.values
      putVarint(child)
    } else {
      const kv = 3 + 1 + varintLength(child) + child // key 'k' (3 bytes) + value field
      out[at++] = (6 << 3) | 2 // AnyValue.kvlist_value
      putVarint(1 + varintLength(kv) + kv)
      out[at++] = (1 << 3) | 2 // KeyValueList.values
      putVarint(kv)
      out[at++] = (1 << 3) | 2 // KeyValue.key
      out[at++] = 1
      out[at++] = 0x6b // 'k'
      out[at++] = (2 << 3) | 2 // KeyValue.value
      putVarint(child)
    }
  }
  leaf.copy(out, at)
  if (at + leaf.length !== out.length) throw new Error('deeplyNestedAnyValue: size mismatch')
  return out
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex')

/** An agent run (GenAI `invoke_agent` span and a chat child) whose agent span carries `attributes`. */
export function agentRunRequest(attributes: RawSpan['attributes']): {
  value: Buffer
  traceId: string
  agentSpanId: string
} {
  const traceId = hex(16)
  const agentSpanId = hex(8)
  const t = BigInt(Date.now()) * 1_000_000n
  const value = otlpRequest([
    {
      traceId,
      spanId: hex(8),
      parentSpanId: agentSpanId,
      name: 'chat gpt-5-mini',
      startNs: t + 1_000_000n,
      endNs: t + 2_000_000n,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: 'done' }], finish_reason: 'stop' },
        ]),
      },
    },
    {
      traceId,
      spanId: agentSpanId,
      name: 'invoke_agent hostile',
      startNs: t,
      endNs: t + 3_000_000n,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'hostile', ...attributes },
    },
  ])
  return { value, traceId, agentSpanId }
}

/** The records of one trace of `spans` spans (an agent root and flat children), `perRecord` spans each. */
export function hugeTrace(
  spans: number,
  perRecord: number,
): { values: Buffer[]; traceId: string; agentSpanId: string } {
  const traceId = hex(16)
  const agentSpanId = hex(8)
  const t = BigInt(Date.now()) * 1_000_000n
  const values: Buffer[] = []
  for (let first = 0; first < spans; first += perRecord) {
    const batch: RawSpan[] = []
    for (let i = first; i < Math.min(spans, first + perRecord); i++) {
      batch.push(
        i === 0
          ? {
              traceId,
              spanId: agentSpanId,
              name: 'invoke_agent huge',
              startNs: t,
              endNs: t + 10_000_000n,
              // Its answer is recorded, so the example scorers have a run to score, not a gap.
              attributes: {
                'gen_ai.operation.name': 'invoke_agent',
                'gen_ai.agent.name': 'huge',
                'gen_ai.output.messages': JSON.stringify([
                  { role: 'assistant', parts: [{ type: 'text', content: 'Done.' }] },
                ]),
              },
            }
          : {
              traceId,
              spanId: hex(8),
              parentSpanId: agentSpanId,
              name: `step ${i}`,
              startNs: t + BigInt(i),
              endNs: t + BigInt(i) + 1n,
              attributes: { 'step.index': String(i) },
            },
      )
    }
    values.push(otlpRequest(batch))
  }
  return { values, traceId, agentSpanId }
}

/**
 * `n` damaged records made from `samples` (valid OTLP protobuf values): truncated, bit-flipped,
 * random bytes, and the wrong encoding (OTLP/JSON, UTF-16 JSON, gzip'd protobuf). Deterministic.
 */
export function damagedRecords(
  samples: { value: Buffer; json: Buffer }[],
  n: number,
  seed = 1,
): HostileRecord[] {
  const random = seededRandom(seed)
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!
  const out: HostileRecord[] = []
  for (let i = 0; i < n; i++) {
    const sample = pick(samples)
    const roll = random()
    if (roll < 0.3) {
      const cut = 1 + Math.floor(random() * (sample.value.length - 1))
      out.push({ kind: 'truncated', value: Buffer.from(sample.value.subarray(0, cut)) })
    } else if (roll < 0.6) {
      const value = Buffer.from(sample.value)
      const flips = 1 + Math.floor(random() * 8)
      for (let f = 0; f < flips; f++) {
        const at = Math.floor(random() * value.length)
        value[at] = value[at]! ^ (1 << Math.floor(random() * 8))
      }
      out.push({ kind: 'bit-flipped', value })
    } else if (roll < 0.85) {
      const length = 1 + Math.floor(random() * 4096)
      const value = Buffer.alloc(length)
      for (let k = 0; k < length; k++) value[k] = Math.floor(random() * 256)
      out.push({ kind: 'random-bytes', value })
    } else if (roll < 0.92) {
      out.push({ kind: 'wrong-encoding:otlp-json', value: sample.json })
    } else if (roll < 0.96) {
      out.push({
        kind: 'wrong-encoding:utf16-json',
        value: Buffer.from(sample.json.toString('utf8'), 'utf16le'),
      })
    } else {
      out.push({ kind: 'wrong-encoding:gzip', value: gzipSync(sample.value) })
    }
  }
  return out
}
