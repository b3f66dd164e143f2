import type { Attributes, AttributeValue } from '../../model/span.ts'

/**
 * Attribute keys decoded at once even when the rest of a span's attributes are left for later
 * (lazy decoding): the keys transform reads to tell what a span is to an agent run
 * (`detectConvention`, `spanRole`, `isAgentRunSpan`), which the assembler asks of every span.
 * Reading any other key decodes all of a span's attributes, so a key missing here costs speed,
 * never correctness; `test/unit/role-attributes.test.ts` runs transform's role functions
 * over every fixture and fails when they read a key that is not listed.
 */
export const ROLE_ATTRIBUTE_KEYS: readonly string[] = [
  // Mastra (`@mastra/otel-exporter`)
  'mastra.span.type',
  // OpenTelemetry GenAI semantic conventions (also AI SDK 7, Strands, Google ADK, Pydantic AI)
  'gen_ai.operation.name',
  // Vercel AI SDK telemetry
  'ai.operationId',
  // OpenInference (Arize Phoenix); `tool.name` tells smolagents' final answer and CrewAI's
  // delegations from tool calls
  'openinference.span.kind',
  'tool.name',
  // OpenLLMetry / Traceloop (`llm.request.type`: LLM spans of its older instrumentations)
  'traceloop.span.kind',
  'llm.request.type',
  // Logfire: spans named by their message template; pending-span copies are no spans of their own
  'logfire.msg_template',
  'logfire.span_type',
  // OpenAI Agents JS: its processor's trace span is the AGENT span without `graph.node.id`
  'graph.node.id',
  // Genkit: the action's type and subtype; a `generate` outside any action (`genkit:isRoot`) is a run
  'genkit:type',
  'genkit:metadata:subtype',
  'genkit:name',
  'genkit:isRoot',
  // Spring AI's Micrometer observations (`chat_client` runs, `tool_call` tools)
  'spring.ai.kind',
  // Quarkus LangChain4j model spans, which have no `gen_ai.operation.name` before 1.8
  'gen_ai.request.model',
]

const ROLE_KEYS = new Set<string>()
const encoder = new TextEncoder()
/** The UTF-8 bytes of the role keys, by their byte length. */
const byLength: Uint8Array[][] = []

/**
 * Adds keys to the role keys decoded at once: the attributes producer profiles match spans by
 * (`src/transform/profiles/`), given at start-up before any span is read, so the role view of a
 * span shows a profile what it matches on.
 */
export function addRoleAttributeKeys(keys: Iterable<string>): void {
  for (const key of keys) {
    if (ROLE_KEYS.has(key)) continue
    ROLE_KEYS.add(key)
    const bytes = encoder.encode(key)
    const list = byLength[bytes.length] ?? []
    list.push(bytes)
    byLength[bytes.length] = list
  }
}
addRoleAttributeKeys(ROLE_ATTRIBUTE_KEYS)

/** Role values kept per key: a handful in practice (`chat`, `invoke_agent`, `LLM`, ...). */
const MAX_SHARED_VALUES = 256
/** Shared `{ key: value }` objects, by key and value. */
const shared = new Map<string, Map<AttributeValue, Attributes>>()

/**
 * A frozen `{ [key]: value }`, the same object for the same role key and primitive value: spans
 * buffered by the thousand need not each hold one.
 */
export function sharedRole(key: string, value: AttributeValue): Attributes {
  if (value !== null && typeof value === 'object') return { [key]: value }
  let byValue = shared.get(key)
  if (byValue === undefined) {
    byValue = new Map()
    shared.set(key, byValue)
  }
  let roles = byValue.get(value)
  if (roles === undefined) {
    roles = Object.freeze({ [key]: value }) as Attributes
    if (byValue.size < MAX_SHARED_VALUES) byValue.set(value, roles)
  }
  return roles
}

/** Whether `key` is one of {@link ROLE_ATTRIBUTE_KEYS}. */
export function isRoleKey(key: string): boolean {
  return ROLE_KEYS.has(key)
}

/** Whether the UTF-8 bytes `buf[start..end)` are one of {@link ROLE_ATTRIBUTE_KEYS} (no string is built). */
export function isRoleKeyAt(buf: Uint8Array, start: number, end: number): boolean {
  const candidates = byLength[end - start]
  if (candidates === undefined) return false
  for (const key of candidates) {
    let i = 0
    while (i < key.length && key[i] === buf[start + i]) i++
    if (i === key.length) return true
  }
  return false
}

/**
 * The quoted keys one of which a message list or a provider's request/response body holds: what
 * the generic reader's `mayHoldMessages` (`transform/conventions/generic.ts`) looks for in a
 * string attribute that opens with `{` or `[` before it parses it as a model call's prompt or
 * answer. A span with such a value may be a model call of no known vocabulary, so its trace may
 * hold a run; keep this list a superset of the one there.
 */
export const MESSAGE_MARKERS: readonly string[] = ['"role"', '"contents"', '"choices"', '"candidates"']

const markerBytes = MESSAGE_MARKERS.map((marker) => Buffer.from(marker, 'latin1'))
/**
 * The generic reader reads values of 10 to 4,000,000 UTF-16 units; their UTF-8 bytes are at least
 * as many, at most 3 per unit.
 */
const MIN_MESSAGE_BYTES = 10
const MAX_MESSAGE_BYTES = 3 * 4_000_000
/** Bytes looked at in JavaScript before the native search takes over (a message list names its first role at once). */
const NEAR_BYTES = 64

/**
 * Whether the UTF-8 string in `buf[start..end)` may hold messages: it opens with `{` or `[` and
 * holds one of {@link MESSAGE_MARKERS}. True for every string the generic reader's
 * `mayHoldMessages` accepts (the markers are ASCII, whose bytes stand for themselves in UTF-8);
 * no string is made.
 */
export function mayHoldMessagesAt(buf: Uint8Array, start: number, end: number): boolean {
  const length = end - start
  if (length < MIN_MESSAGE_BYTES || length > MAX_MESSAGE_BYTES) return false
  const first = buf[start]
  if (first !== 123 /* { */ && first !== 91 /* [ */) return false
  // A message list or a body says `"role"` (or `"contents"`...) in its first bytes: found there
  // without a call into native code, which costs more than the look.
  const near = Math.min(end, start + NEAR_BYTES)
  for (let p = start + 1; p < near; p++) if (buf[p] === 34 /* " */ && markerAt(buf, p, end)) return true
  if (near === end) return false
  // Markers starting in the first bytes were looked at whole: the rest is searched from `near` on.
  const bytes = Buffer.from(buf.buffer, buf.byteOffset + near, end - near)
  for (const marker of markerBytes) if (bytes.indexOf(marker) >= 0) return true
  return false
}

/** Whether one of {@link MESSAGE_MARKERS} starts at `p` (before `end`). */
function markerAt(buf: Uint8Array, p: number, end: number): boolean {
  for (const marker of markerBytes) {
    if (p + marker.length > end) continue
    let i = 1
    while (i < marker.length && buf[p + i] === marker[i]) i++
    if (i === marker.length) return true
  }
  return false
}
