import { type Span, StatusCode } from '../../model/index.ts'
import { parseMessages } from '../parse-messages.ts'
import { requestMessages, responseMessages } from '../provider-wire.ts'
import { isRecord, parseJsonValue } from '../read-attribute.ts'
import type { Profile } from './profile-schema.ts'

/*
 * `tracescore inspect --suggest`: a starting profile for spans no reader understands, guessed from
 * what the values are (a provider request or response body, a message list, at the top of an
 * attribute or one key down) and from the spans around them, for the user to edit.
 */

/** Values this long or longer are not parsed to guess from. */
const MAX_GUESS_CHARS = 1_000_000

type Source = {
  attribute: string
  path?: string
  shape: 'provider-request' | 'provider-response' | 'messages' | 'text'
}

/** Where a value holds a model prompt or answer: the attribute itself or one key down. */
function contentSources(span: Span): { prompt?: Source; answer?: Source } {
  const found: { prompt?: Source; answer?: Source } = {}
  for (const [key, raw] of Object.entries(span.attributes)) {
    if (typeof raw !== 'string' || raw.length > MAX_GUESS_CHARS || !/^\s*[[{]/.test(raw)) continue
    const value = parseJsonValue(raw)
    const candidates: [unknown, string | undefined][] = [[value, undefined]]
    if (isRecord(value)) for (const [inner, v] of Object.entries(value)) candidates.push([v, `$.${inner}`])
    for (const [v, path] of candidates) {
      const at = path ? { attribute: key, path } : { attribute: key }
      if (!found.answer && responseMessages(v)) found.answer = { ...at, shape: 'provider-response' }
      else if (!found.prompt && requestMessages(v)) found.prompt = { ...at, shape: 'provider-request' }
      else if (Array.isArray(v)) {
        // A message list: the answer when every message is the assistant's, else a prompt.
        const messages = parseMessages(v)
        if (!messages?.length) continue
        const answers = messages.every((message) => message.role === 'assistant')
        if (answers && !found.answer) found.answer = { ...at, shape: 'messages' }
        else if (!answers && !found.prompt) found.prompt = { ...at, shape: 'messages' }
      }
    }
  }
  return found
}

/**
 * A model's answer held as plain text under a legacy key (`gen_ai.completion`, `llm.completion`):
 * read where no span holds JSON content. A plain-text prompt is not proposed: it is the whole
 * conversation flattened into one text (system, user and tool turns run together), which no shape
 * splits back into messages.
 */
function textAnswer(span: Span): Source | undefined {
  for (const [key, raw] of Object.entries(span.attributes))
    if (
      typeof raw === 'string' &&
      raw.trim() !== '' &&
      /(^|\.)completion$/i.test(key) &&
      !/^\s*[[{]/.test(raw)
    )
      return { attribute: key, shape: 'text' }
  return undefined
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The longest start all names share, cut after its last separator (`.`, ` `, `_`, `/`, `:`). */
function sharedStart(names: readonly string[]): string {
  let end = 0
  const first = names[0]!
  while (end < first.length && names.every((name) => name[end] === first[end])) end++
  let cut = end
  while (cut > 0 && !/[. _/:]/.test(first[cut - 1]!)) cut--
  return first.slice(0, cut)
}

/** A matcher for spans of these names: the name, else the start they share as a pattern. */
function nameMatcher(names: string[]): { spanName: string } | { spanNamePattern: string } {
  const distinct = [...new Set(names)]
  if (distinct.length === 1) return { spanName: distinct[0]! }
  const shared = sharedStart(distinct) || distinct[0]!.split(' ')[0]!
  return { spanNamePattern: `^${escapeRegExp(shared)}` }
}

/**
 * Where agent spans without a name key name their agent: the part of their span names after the
 * start they share, up to the next separator (`langchain4j.aiservices.<Agent>.chat`), when it
 * differs between them.
 */
function nameInSpanNames(names: readonly string[]): { spanName: string } | undefined {
  const distinct = [...new Set(names)]
  if (distinct.length < 2) return undefined
  const shared = sharedStart(distinct)
  if (shared === '' || !/[.:/]$/.test(shared)) return undefined
  return { spanName: `^${escapeRegExp(shared)}([^./: ]+)` }
}

/**
 * The first attribute key of `spans` that `words` takes, trying each pattern in turn (the first
 * ones name the role: `gen_ai.agent.name` before a bare `name`); a pattern is asked of the key's
 * last word, or of the whole key when it holds a dot.
 */
function keyLike(spans: Span[], ...words: RegExp[]): string | undefined {
  for (const pattern of words)
    for (const span of spans)
      for (const key of Object.keys(span.attributes)) {
        const text = pattern.source.includes('\\.') ? key : key.slice(key.lastIndexOf('.') + 1)
        if (pattern.test(text)) return key
      }
  return undefined
}

function put(target: Record<string, unknown>, field: string, value: unknown): void {
  if (value !== undefined) target[field] = value
}

/** A starting profile for the spans of some traces; undefined when no span looks like a model call. */
export function suggestProfile(spans: readonly Span[]): Profile | undefined {
  const byId = new Map(spans.map((span) => [span.spanId, span]))
  let models = spans.flatMap((span) => {
    const found = contentSources(span)
    return found.prompt || found.answer ? [{ span, ...found }] : []
  })
  // No JSON content anywhere: answers held as plain text, by a convention's legacy key.
  if (models.length === 0)
    models = spans.flatMap((span) => {
      const answer = textAnswer(span)
      return answer ? [{ span, answer, prompt: undefined }] : []
    })
  if (models.length === 0) return undefined
  const modelIds = new Set(models.map((m) => m.span.spanId))
  const agents = [...new Set(models.flatMap((m) => byId.get(m.span.parentSpanId ?? '') ?? []))]
  const agentIds = new Set(agents.map((span) => span.spanId))
  // Model calls that recorded nothing (a failed call, a turn with only tool calls) share a name with those that did.
  const modelNames = new Set(models.map((m) => m.span.name))
  const tools = spans.filter(
    (span) =>
      agentIds.has(span.parentSpanId ?? '') && !modelIds.has(span.spanId) && !modelNames.has(span.name),
  )
  const above = spans.filter((span) => agents.some((agent) => agent.parentSpanId === span.spanId))
  const agent: Record<string, unknown> = {}
  put(
    agent,
    'name',
    keyLike(agents, /(^|\.)agent\.name$/i, /^(agent|agent_name)$/i, /^name$/i) ??
      nameInSpanNames(agents.map((span) => span.name)),
  )
  const conversation = keyLike(
    [...agents, ...above],
    /^(session|session_id|conversation|conversation_id|thread|thread_id)$/i,
  )
  if (conversation) agent.conversationId = { attribute: conversation, ancestors: true }
  const input = keyLike(agents, /^(input|question|query|prompt|message)$/i)
  if (input) agent.input = { attribute: input, shape: 'text' }
  put(agent, 'instructions', keyLike(agents, /^(instructions|system|system_prompt|brief)$/i))
  const tool: Record<string, unknown> = {}
  put(tool, 'name', keyLike(tools, /(^|\.)tool\.name$/i, /^(tool|tool_name)$/i, /^name$/i))
  put(tool, 'id', keyLike(tools, /(^|\.)call\.id$/i, /^(call|call_id|tool_call_id)$/i, /^id$/i))
  put(tool, 'arguments', keyLike(tools, /^(args|arguments|params|parameters|input)$/i))
  put(tool, 'result', keyLike(tools, /^(result|output|outcome|return)$/i))
  put(tool, 'error', keyLike(tools, /^(error|failure)$/i))
  const model: Record<string, unknown> = {}
  put(model, 'prompt', models.find((m) => m.prompt)?.prompt)
  put(model, 'answer', models.find((m) => m.answer)?.answer)
  const scope = models[0]!.span.scope?.name
  const roleSpans = [...agents, ...tools, ...models.map((m) => m.span)]
  const errorKey = keyLike(roleSpans, /^(error|failure)$/i)
  // Failures recorded only as `exception` events on spans whose status is not ERROR.
  const exceptionEvents =
    !errorKey &&
    roleSpans.some(
      (span) =>
        span.status?.code !== StatusCode.ERROR && span.events.some((event) => event.name === 'exception'),
    )
  // Spans with GenAI keys: what the profile does not say is the GenAI reader's.
  const genAi = models.some((m) => Object.keys(m.span.attributes).some((key) => key.startsWith('gen_ai.')))
  const profile: Profile = {
    name: scope || 'my-producer',
    ...(genAi ? { extends: 'genai' as const } : {}),
    owns: scope ? { scope } : nameMatcher(models.map((m) => m.span.name)),
    roles: {
      ...(agents.length ? { agent: nameMatcher(agents.map((span) => span.name)) } : {}),
      model: nameMatcher(models.map((m) => m.span.name)),
      ...(tools.length ? { tool: nameMatcher(tools.map((span) => span.name)) } : {}),
    },
    fields: { agent, model, tool } as Profile['fields'],
    ...(errorKey ? { status: { attribute: { key: errorKey }, message: errorKey } } : {}),
    ...(exceptionEvents ? { status: { exceptionEvent: true } } : {}),
  }
  return profile
}
