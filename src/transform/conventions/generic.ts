import { type AttributeValue, type Span, StatusCode } from '../../model/index.ts'
import type { ChatMessage } from '../chat-message.ts'
import { parseMessages, parsePromptInput } from '../parse-messages.ts'
import { assistantOnly, requestMessages, responseMessages } from '../provider-wire.ts'
import { isRecord, parseJsonValue, plainAttributes } from '../read-attribute.ts'
import type { SpanTree } from '../span-tree.ts'
import type { AgentIdentity, ConventionReader, SpanRole, ToolSpanCall } from './convention-reader.ts'

/*
 * Spans of no known vocabulary, read by what every producer records alike: a model call holds its
 * prompt and its answer (a provider's request and response body, or a message list, under
 * attribute names of its own); a tool call names its tool and holds its arguments and result.
 * Runs around such model calls are found by structure (`structural-runs.ts`); this reader names
 * them from the attributes and span names around them.
 */

/** A model call's content as one span holds it; read once per span. */
interface ModelContent {
  prompt?: ChatMessage[]
  answer?: ChatMessage[]
}

/**
 * Each span's content while one call into the transform reads ({@link withGenericReading}), dropped
 * with it: the messages end up in runs a scorer may change, so the next call must parse its own.
 */
let contents: Map<Span, ModelContent> | undefined

/** Attribute values this long or longer are not parsed to look for a model call (bounded work). */
const MAX_CONTENT_CHARS = 4_000_000

/**
 * Whether a string attribute may hold a message list or a request/response body (cheap, no parse).
 * The ingest scan looks for the same quoted keys on the bytes (`MESSAGE_MARKERS`): add one there too.
 */
export function mayHoldMessages(value: AttributeValue): value is string {
  if (typeof value !== 'string' || value.length < 10 || value.length > MAX_CONTENT_CHARS) return false
  const first = value.charCodeAt(0)
  if (first !== 123 /* { */ && first !== 91 /* [ */) return false
  return (
    value.includes('"role"') ||
    value.includes('"contents"') ||
    value.includes('"choices"') ||
    value.includes('"candidates"') ||
    // An OpenAI Responses answer that only calls tools: its items have no role.
    value.includes('"function_call"')
  )
}

/** The prompt and answer a span holds in any attribute, by what the values are (their keys are the producer's). */
export function modelContent(span: Span): ModelContent {
  let content = contents?.get(span)
  if (content) return content
  content = {}
  for (const key in plainAttributes(span.attributes)) {
    const raw = span.attributes[key]!
    if (!mayHoldMessages(raw)) continue
    const value = parseJsonValue(raw)
    if (value === raw) continue
    if (!content.answer) {
      const answer =
        responseMessages(value) ?? assistantOnly(Array.isArray(value) ? parseMessages(value) : undefined)
      if (answer) {
        content.answer = answer
        continue
      }
    }
    if (!content.prompt) {
      const prompt = requestMessages(value) ?? (Array.isArray(value) ? parseMessages(value) : undefined)
      if (prompt?.some((message) => message.role !== 'assistant')) content.prompt = prompt
    }
  }
  if (scope !== undefined) {
    contents ??= new Map()
    contents.set(span, content)
  }
  return content
}

function hasSystem(messages: readonly ChatMessage[]): boolean {
  return messages[0]?.role === 'system'
}

/** The last dotted segment of a key: `haystack.tool.name` → `name`. */
function lastSegment(key: string): string {
  return key.slice(key.lastIndexOf('.') + 1).toLowerCase()
}

/** A tool's name in the span name: `runTool lookup_order`, `tool: lookup_order`, `call_tool 'x'`. */
const TOOL_IN_NAME = /(?:^|[\s._:-])(?:[a-z]*_?)?tool[\s:]+['"]?([A-Za-z_][\w.-]*)['"]?$/i

function toolName(span: Span): string | undefined {
  for (const key in plainAttributes(span.attributes)) {
    const value = span.attributes[key]
    if (typeof value !== 'string' || value.length === 0) continue
    const lower = key.toLowerCase()
    if (
      lower === 'tool' ||
      lower.endsWith('.tool') ||
      lower.endsWith('tool.name') ||
      lower.endsWith('tool_name')
    )
      return value
  }
  return TOOL_IN_NAME.exec(span.name)?.[1]
}

/** An agent span's own instructions, input and output, by the last segment of their key. */
const INSTRUCTION_KEYS = ['instructions', 'system_prompt', 'system_instructions']
const INPUT_KEYS = ['input']
const OUTPUT_KEYS = ['output']

const ARGUMENT_KEYS = ['args', 'arguments', 'input', 'inputs', 'kwargs', 'parameters', 'params']
const RESULT_KEYS = ['result', 'output', 'outputs', 'response', 'return', 'returned']

/**
 * The first attribute whose last key segment is one of `names` (with `suffix`, or ends with
 * `_<name>`: `tool_call_args`, `tool_response`).
 */
function attributeNamed(
  span: Span,
  names: readonly string[],
  suffix = false,
): { key: string; value: AttributeValue } | undefined {
  // The names in the order they are believed: `input` before `parameters` (a tool's schema).
  for (const name of names)
    for (const key in plainAttributes(span.attributes)) {
      const segment = lastSegment(key)
      if (segment === name || (suffix && segment.endsWith(`_${name}`)))
        return { key, value: span.attributes[key]! }
    }
  return undefined
}

/** A tool span's call: the tool's name, and the attributes named like its arguments and result. */
function toolCall(span: Span): ToolSpanCall {
  const args = attributeNamed(span, ARGUMENT_KEYS, true)
  const result = attributeNamed(span, RESULT_KEYS, true)
  let toolCallId: string | undefined
  for (const key in plainAttributes(span.attributes)) {
    const value = span.attributes[key]
    if (typeof value === 'string' && /call[._]?id$/i.test(key)) toolCallId = value
  }
  return {
    toolCallId,
    toolName: toolName(span),
    args: args && parseJsonValue(args.value),
    result: result && parseJsonValue(result.value),
    hasResult: result !== undefined,
  }
}

/** The agent a span names: an attribute key of any vocabulary, else its span name (a template filled in). */
export function agentNameOf(span: Span): string | undefined {
  return agentNameKey(span) ?? agentNameInSpanName(filledTemplate(span)) ?? typedAgentSpanName(span)
}

/** A type attribute that says a span is an agent's (`*type`, `*spanType`: `agent`, `"AGENT"` as JSON). */
const AGENT_TYPE = /^"?agent"?$/i
/** Span names that say what a span does, not which agent it is. */
const GENERIC_SPAN_NAME = /^(?:agent|agents|invoke_agent|run|step|call|chain|workflow|task|main|execute)$/i

/**
 * The span name of a span whose type attribute says it is an agent's (a tracing SDK's observation
 * or span type: `langfuse.observation.type` `agent`, `mlflow.spanType` `"AGENT"`): decorator-made
 * spans are named after the agent, or after the function that runs it. A name with spaces or of a
 * generic word is no agent's name.
 */
function typedAgentSpanName(span: Span): string | undefined {
  if (!/^[\w.:-]{1,100}$/.test(span.name) || GENERIC_SPAN_NAME.test(span.name)) return undefined
  const attributes = plainAttributes(span.attributes)
  for (const key in attributes) {
    const value = attributes[key]
    if (typeof value === 'string' && /type$/i.test(key) && AGENT_TYPE.test(value)) return span.name
  }
  return undefined
}

/** The agent an attribute of the span names by its key (`agent`, `*agent.name`, `*agent_name`, …). */
function agentNameKey(span: Span): string | undefined {
  const attributes = plainAttributes(span.attributes)
  for (const key in attributes) {
    const value = attributes[key]
    if (typeof value !== 'string' || value.length === 0) continue
    const lower = key.toLowerCase()
    if (
      lower === 'agent' ||
      lower.endsWith('agent.name') ||
      lower.endsWith('agent_name') ||
      lower.endsWith('.agent')
    )
      return value
    // `<thing>.name` beside `<thing>.type` that says it is an agent (a pipeline's agent component).
    if (lower.endsWith('.name')) {
      const type = attributes[`${key.slice(0, -'name'.length)}type`]
      if (typeof type === 'string' && /agent/i.test(type)) return value
    }
  }
  return undefined
}

/** The agent an attribute key of one of the span's children names (the model calls of the agent it runs). */
function agentNameKeyBelow(span: Span, tree: SpanTree): string | undefined {
  for (const child of tree.children(span.spanId)) {
    const name = agentNameKey(child)
    if (name !== undefined) return name
  }
  return undefined
}

/** An agent-name field inside a value: `agent_name='x'` (a Python repr), `"agent_name": "x"` (JSON). */
const NAME_FIELD = /agent_name['"]?\s*[=:]\s*['"]([^'"\\]{1,200})['"]/
/** Values longer than this are not searched for an agent-name field. */
const MAX_FIELD_SEARCH_CHARS = 100_000

/**
 * The agent named by a field inside the values of a run span's first children (its steps record
 * the workflow's events, `AgentInput(…, current_agent_name='x')`): where the run span is named
 * after a class (`FunctionAgent.run`), the program's name for the agent is there.
 */
export function agentNameInValuesBelow(span: Span, tree: SpanTree): string | undefined {
  for (const child of tree.children(span.spanId)) {
    for (const key in plainAttributes(child.attributes)) {
      const value = child.attributes[key]
      if (typeof value !== 'string' || value.length > MAX_FIELD_SEARCH_CHARS) continue
      const found = NAME_FIELD.exec(value)
      if (found) return found[1]
    }
  }
  return undefined
}

/**
 * A span name that is a message template (`Agent run: {name!r}`) with its fields filled from the
 * span's attributes of those names (`!r`: quoted), as the producer formats it.
 */
function filledTemplate(span: Span): string {
  if (!span.name.includes('{')) return span.name
  return span.name.replace(/\{([\w.]+)(!r)?\}/g, (field, key: string, repr?: string) => {
    const value = span.attributes[key]
    if (typeof value !== 'string') return field
    return repr ? `'${value}'` : value
  })
}

/**
 * An agent's name in a span name: `runAgent support-agent`, `invoke_agent x`, `Agent run: 'x'`,
 * and a method on an object named after the agent (`support_agent.run`, `Researcher._execute_core`,
 * `langchain4j.aiservices.SupportAgent.chat`).
 */
export function agentNameInSpanName(name: string): string | undefined {
  // `agent` as a word, or `Agent` ending a camel-case word (`runAgent`), then the name.
  const labelled = /(?:\b[Aa]gent|(?<=[a-z])Agent)\b(?: run)?[:\s]\s*['"]?([^'"\s][^'"]*?)['"]?$/.exec(name)
  if (labelled && !/^(run|step|call|invoke|workflow|loop)$/i.test(labelled[1]!)) return labelled[1]
  const method = /(?:^|\.)([^.]+)\.(_?[a-z][a-z_]*)$/.exec(name)
  if (
    method &&
    /[A-Za-z]/.test(method[1]!) &&
    !/^(agent|run|step|llm|tool|component|pipeline)$/i.test(method[1]!)
  )
    return method[1]
  return undefined
}

/** A conversation id in any vocabulary: `*session.id`, `conversation_id`, `thread`, or inside a metadata object. */
function conversationIn(span: Span): string | undefined {
  for (const key in plainAttributes(span.attributes)) {
    const value = span.attributes[key]
    if (
      /(?:conversation|session|thread|group)(?:[._]?id)?$/i.test(key) &&
      typeof value === 'string' &&
      value.length > 0
    )
      return value
    if (/metadata$/i.test(key) && typeof value === 'string' && value.includes('_id')) {
      const parsed = parseJsonValue(value)
      if (!isRecord(parsed)) continue
      for (const field of [
        'conversation_id',
        'conversationId',
        'session_id',
        'sessionId',
        'thread_id',
        'threadId',
      ])
        if (typeof parsed[field] === 'string') return parsed[field] as string
    }
  }
  return undefined
}

/**
 * Who ran a run found by structure: read from its span and the spans above it up to the tool call
 * that started it (or the root), the nearest first; then from the spans below it down to its first
 * model call (an agent span inside a request span that holds the conversation).
 */
function identity(span: Span, tree?: SpanTree): AgentIdentity {
  const result: AgentIdentity = {}
  if (tree && toolName(span) !== undefined) {
    // The tool call that runs an agent heads its run (the agent's model calls sit right under it):
    // the agent is named below it, never by the tool's own name or by the caller above it.
    result.agentName =
      agentNameKey(span) ?? agentNameKeyBelow(span, tree) ?? agentNameInValuesBelow(span, tree)
    result.conversationId = conversationIn(span)
    return result
  }
  for (let at: Span | undefined = span; at; at = tree?.parentOf(at)) {
    if (at !== span && toolName(at) !== undefined) break
    if (at === span && tree) result.agentName ??= agentNameKey(at) ?? agentNameInValuesBelow(at, tree)
    result.agentName ??= agentNameOf(at)
    result.conversationId ??= conversationIn(at)
  }
  return result
}

/**
 * Defined while spans of no known vocabulary are read (by what their attributes hold): while a
 * trace is extracted, never on the ingest path, where a span's role is asked of every span and may
 * read only the role keys (`ROLE_ATTRIBUTE_KEYS`) of a lazily decoded span. A new object for each
 * outermost {@link withGenericReading} call.
 */
let scope: object | undefined

/**
 * What memos of values parsed from spans are kept under (`readingScope() === memo.scope`): one
 * call into the transform. Such values end up in runs that scorers may change, so no memo may
 * hand them to the next call (`model-outputs.test.ts`, `profile-values.test.ts`).
 */
export function readingScope(): object | undefined {
  return scope
}

/** Runs `work` with spans of no known vocabulary read by the generic reader (re-entrant). */
export function withGenericReading<T>(work: () => T): T {
  if (scope !== undefined) return work()
  scope = {}
  try {
    return work()
  } finally {
    scope = undefined
    contents = undefined
  }
}

/** The reader of spans no other reader knows, and of runs found by structure. */
export const genericReader: ConventionReader = {
  convention: 'generic',
  matches: (span) => {
    if (scope === undefined) return false
    for (const key in plainAttributes(span.attributes))
      if (mayHoldMessages(span.attributes[key]!)) return true
    return toolName(span) !== undefined
  },
  role(span): SpanRole {
    const content = modelContent(span)
    // A prompt and its answer are a model call's; so is a prompt alone where the call failed, or
    // where it is a whole prompt, system text first (a producer that records only the prompt). A
    // span whose prompt only repeats a model call's under it is not one (`structural-runs.ts`
    // keeps the innermost).
    if (
      content.prompt &&
      (content.answer || span.status.code === StatusCode.ERROR || hasSystem(content.prompt))
    )
      return 'model'
    return toolName(span) !== undefined ? 'tool' : 'other'
  },
  identity,
  instructions: (span) => {
    const found = attributeNamed(span, INSTRUCTION_KEYS)
    return typeof found?.value === 'string' && found.value.length > 0 ? [found.value] : undefined
  },
  agentInput: (span) => {
    const found = attributeNamed(span, INPUT_KEYS)
    return found && parsePromptInput(parseJsonValue(found.value))
  },
  agentOutput: (span) => {
    const found = attributeNamed(span, OUTPUT_KEYS)
    if (!found) return undefined
    const value = parseJsonValue(found.value)
    if (typeof value === 'string') return [{ role: 'assistant', parts: [{ type: 'text', text: value }] }]
    return assistantOnly(Array.isArray(value) ? parseMessages(value) : undefined)
  },
  modelInput: (span) => modelContent(span).prompt,
  modelOutput: (span) => modelContent(span).answer,
  toolCall: (span) => toolCall(span),
  metadata: () => ({}),
}
