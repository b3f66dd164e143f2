/**
 * Inputs built to hit the worst case of each path that sees producer data (issue 11): shared by
 * the hostile-input tests and `bench/hostile.bench.ts`. Every builder takes a size (characters,
 * bytes or spans) so a caller can double it and watch how the time grows.
 */

import { ProtoWriter } from '../../src/ingest/decode/testing/proto-writer.ts'
import type { Span } from '../../src/model/index.ts'

const TRACE_ID = '5b8efff798038103d269b633813fc60c'
const BASE_NANOS = 1_764_500_000_000_000_000n

/** A 16-hex span id from a number. */
export const hostileSpanId = (n: number): string => n.toString(16).padStart(16, '0')

/** A GenAI-convention span; times in milliseconds after a fixed base. */
export function hostileSpan(options: {
  id: number
  parent?: number | string
  start?: number
  end?: number
  operation?: string
  name?: string
  attributes?: Record<string, string>
}): Span {
  const start = options.start ?? 0
  const nanos = (ms: number) => (BASE_NANOS + BigInt(ms) * 1_000_000n).toString()
  const parent = options.parent
  return {
    traceId: TRACE_ID,
    spanId: hostileSpanId(options.id),
    ...(parent !== undefined
      ? { parentSpanId: typeof parent === 'string' ? parent : hostileSpanId(parent) }
      : {}),
    name: options.name ?? options.operation ?? 'work',
    kind: 1,
    startTimeUnixNano: nanos(start),
    endTimeUnixNano: nanos(options.end ?? start + 10),
    attributes: {
      ...(options.operation ? { 'gen_ai.operation.name': options.operation } : {}),
      ...options.attributes,
    },
    events: [],
    links: [],
    status: { code: 1 },
    resource: { 'service.name': 'hostile' },
    scope: { name: 'hostile' },
  }
}

/**
 * A base64-looking blob of `length` characters from `[A-Za-z0-9+]` without `@` (what any
 * binary tool result looks like): the worst case of an e-mail pattern that backtracks.
 */
export function base64Run(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+'
  let state = 0x2545f491
  let out = ''
  for (let i = 0; i < length; i++) {
    state = (state * 1_103_515_245 + 12_345) >>> 0
    out += alphabet[state % alphabet.length]
  }
  return out
}

/**
 * Text of about `length` characters that is the worst case for every built-in redaction pattern
 * at once: long runs of e-mail local-part, key, token and digit characters that never complete.
 */
export function redactionWorstCase(length: number): string {
  const quarter = Math.floor(length / 4)
  return [
    base64Run(quarter),
    `sk-${'-'.repeat(quarter - 3)}`,
    'bearer '.repeat(Math.floor(quarter / 7)),
    '1 '.repeat(Math.floor(quarter / 2)),
  ].join('\n')
}

/**
 * An `ExportTraceServiceRequest` of about `bytes` bytes: one `ResourceSpans` whose `resource`
 * field is repeated (each copy one new attribute; protobuf merges repeated messages), then one span.
 */
export function repeatedResourceRequest(bytes: number): Uint8Array {
  const repeats = Math.max(1, Math.floor(bytes / 18))
  const resourceSpans = new ProtoWriter()
  for (let i = 0; i < repeats; i++) {
    resourceSpans.message(1, (resource) =>
      resource.message(1, (kv) => kv.stringField(1, `k${i}`).message(2, (v) => v.stringField(1, 'v'))),
    )
  }
  resourceSpans.message(2, (scopeSpans) =>
    scopeSpans.message(2, (span) =>
      span
        .hexField(1, TRACE_ID)
        .hexField(2, hostileSpanId(1))
        .stringField(5, 'one span')
        .fixed64Field(7, BASE_NANOS)
        .fixed64Field(8, BASE_NANOS + 1_000_000n),
    ),
  )
  return new ProtoWriter().message(1, (w) => w.raw(resourceSpans.finish())).finish()
}

/** `spans` spans: a chain of plain spans half of them deep, and the other half agents under its last link. */
export function agentsUnderDeepChain(spans: number): Span[] {
  const depth = Math.floor(spans / 2)
  const out: Span[] = []
  for (let i = 1; i <= depth; i++) {
    out.push(hostileSpan({ id: i, ...(i > 1 ? { parent: i - 1 } : {}), end: 10_000_000, name: 'plain' }))
  }
  for (let i = 0; i < spans - depth; i++) {
    out.push(
      hostileSpan({ id: depth + 1 + i, parent: depth, start: i, end: i + 1, operation: 'invoke_agent' }),
    )
  }
  return out
}

/** `spans` spans: half finished agent runs one after another, then half spans with a missing parent. */
export function orphansAfterFinishedAgents(spans: number): Span[] {
  const agents = Math.floor(spans / 2)
  const out: Span[] = []
  for (let i = 0; i < agents; i++) {
    out.push(hostileSpan({ id: i + 1, start: i * 10, end: i * 10 + 5, operation: 'invoke_agent' }))
  }
  const after = agents * 10 + 100
  for (let i = 0; i < spans - agents; i++) {
    out.push(
      hostileSpan({ id: agents + 1 + i, parent: 'ffffffffffffffff', start: after + i, name: 'orphan' }),
    )
  }
  return out
}

/** One agent run whose `spans - 1` tool spans are each nested in the previous one. */
export function nestedToolSpans(spans: number): Span[] {
  const out: Span[] = [hostileSpan({ id: 1, end: 10_000_000, operation: 'invoke_agent' })]
  for (let i = 2; i <= spans; i++) {
    out.push(
      hostileSpan({
        id: i,
        parent: i - 1,
        start: i,
        end: 10_000_000 - i,
        operation: 'execute_tool',
        attributes: { 'gen_ai.tool.name': 'nested', 'gen_ai.tool.call.id': `call-${i}` },
      }),
    )
  }
  return out
}

/** One agent run whose first model prompt (about `bytes` long) holds only distinct system messages. */
export function manySystemMessages(bytes: number): Span[] {
  const messages: string[] = []
  let length = 0
  for (let i = 0; length < bytes; i++) {
    const message = JSON.stringify({ role: 'system', parts: [{ type: 'text', content: `rule ${i}` }] })
    messages.push(message)
    length += message.length + 1
  }
  return agentWithOneChild('chat', { 'gen_ai.input.messages': `[${messages.join(',')}]` })
}

/** JSON text of about `bytes` characters nested as deep as that allows: `{"a":{"a":…}}`. */
export function deepJsonText(bytes: number): string {
  const depth = Math.max(1, Math.floor((bytes - 2) / 6))
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
}

/** One agent run with one tool call whose arguments are JSON of about `bytes` characters nested deep. */
export function deepJsonToolArguments(bytes: number): Span[] {
  return agentWithOneChild('execute_tool', {
    'gen_ai.tool.name': 'deep',
    'gen_ai.tool.call.id': 'call-1',
    'gen_ai.tool.call.arguments': deepJsonText(bytes),
    'gen_ai.tool.call.result': 'ok',
  })
}

/** An agent span and one child span of the given operation. */
function agentWithOneChild(operation: string, attributes: Record<string, string>): Span[] {
  return [
    hostileSpan({ id: 1, end: 1_000, operation: 'invoke_agent' }),
    hostileSpan({ id: 2, parent: 1, start: 1, end: 2, operation, attributes }),
  ]
}
