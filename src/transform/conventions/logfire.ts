import type { Attributes, Span } from '../../model/index.ts'
import type { ChatMessage } from '../chat-message.ts'
import type { Notes } from '../notes.ts'
import { parseMessages } from '../parse-messages.ts'
import { hasAttribute, isRecord, parseJsonValue, readString } from '../read-attribute.ts'
import { byStart, type SpanTree, walkBelow } from '../span-tree.ts'
import type { AgentIdentity, ConventionReader, SpanRole } from './convention-reader.ts'
import { frameworkRules } from './framework-rules.ts'
import { genAiReader } from './genai.ts'

const TEMPLATE = 'logfire.msg_template'

/** The scope of `logfire.instrument_openai_agents()` (`logfire.<integration>`). */
const OPENAI_AGENTS_SCOPE = 'logfire.openai_agents'

/** Message templates of the OpenAI Agents integration (they are the span names). */
const AGENT_RUN = 'Agent run: {name!r}'
const FUNCTION = 'Function: {name}'
const HANDOFF = 'Handoff: {from_agent} → {to_agent}'
const AGENTS_TRACE = 'OpenAI Agents trace: {name}'

function template(span: Span): string | undefined {
  return readString(span.attributes, TEMPLATE)
}

/**
 * Whether the span is Logfire's alone to describe: a Logfire span (`logfire.msg_template`) that
 * is neither OpenInference nor a GenAI agent/tool/step span. A GenAI model call (`chat`) stays
 * here: Logfire may record its messages only in its own attributes, and GenAI's are read first.
 */
function isLogfireSpan(span: Span): boolean {
  if (template(span) === undefined || hasAttribute(span.attributes, 'openinference.span.kind')) return false
  return span.attributes['gen_ai.operation.name'] === undefined || genAiReader.role(span) === 'model'
}

/**
 * An attribute as Logfire wrote it: a structured value (object, list, dataclass, Pydantic model)
 * is JSON text that `logfire.json_schema` declares with a `type`; other strings are plain text,
 * even when they look like JSON (a tool's string output).
 */
export function logfireValue(span: Span, key: string, notes: Notes): unknown {
  const attributes = span.attributes
  if (!hasAttribute(attributes, key)) return undefined
  const value = attributes[key]
  if (typeof value !== 'string' || !isStructured(attributes, key)) return value
  return parseJsonValue(value, { notes, what: `${key} of span ${span.spanId}` })
}

/** Whether `logfire.json_schema` gives the key a JSON type (Logfire then wrote it as JSON text). */
function isStructured(attributes: Attributes, key: string): boolean {
  const text = readString(attributes, 'logfire.json_schema')
  if (text === undefined) return false
  let schema: unknown
  try {
    schema = JSON.parse(text)
  } catch {
    return false
  }
  const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : undefined
  const property = properties && Object.hasOwn(properties, key) ? properties[key] : undefined
  return isRecord(property) && (typeof property.type === 'string' || 'x-python-datatype' in property)
}

/**
 * A model call's messages in Logfire's own layout: `events` (its OpenAI and Pydantic AI
 * integrations: GenAI ≤1.36 event bodies, `{"event.name", role, content, tool_calls}`, the
 * prompt followed by the answer) or `request_data.messages` (Chat Completions, the OpenAI
 * Agents `Chat completion` span: the prompt followed by the answer).
 */
function conversation(span: Span, notes: Notes): ChatMessage[] | undefined {
  for (const key of ['events', 'request_data']) {
    const value = logfireValue(span, key, notes)
    if (value === undefined) continue
    const messages = parseMessages(value)
    if (messages) return messages
    notes.add(`${key} of span ${span.spanId} could not be read`)
  }
  return undefined
}

/**
 * Where the answer starts in a Logfire conversation: the trailing assistant messages are what
 * the model answered (a prompt ends with a user or tool message).
 */
function answerStart(messages: readonly ChatMessage[]): number {
  let start = messages.length
  while (start > 0 && messages[start - 1]!.role === 'assistant') start--
  return start
}

/** `response_data.message` of a Chat Completions span (Logfire's `instrument_openai`). */
function responseMessage(span: Span, notes: Notes): ChatMessage[] | undefined {
  const data = logfireValue(span, 'response_data', notes)
  return isRecord(data) && isRecord(data.message)
    ? parseMessages([{ role: 'assistant', ...data.message }])
    : undefined
}

function isAgentsSpan(span: Span, name: string): boolean {
  return isOpenAiAgentsScope(span) && template(span) === name
}

/** A span of Logfire's OpenAI Agents integration (a framework rule: off in the generalisation measure). */
function isOpenAiAgentsScope(span: Span): boolean {
  return frameworkRules.on && span.scope.name === OPENAI_AGENTS_SCOPE
}

/**
 * Logfire (`logfire` Python SDK): spans named by their message template (`logfire.msg_template`,
 * formatted in `logfire.msg`), structured attributes as JSON text declared by `logfire.json_schema`,
 * pending-span copies (`logfire.span_type` `pending_span`) that are not spans of their own, model
 * calls with their conversation in `events` or `request_data` / `response_data` (or GenAI
 * messages, read first). The OpenAI Agents integration (scope `logfire.openai_agents`) adds the
 * agent spans: `Agent run: {name!r}` is a run (the `OpenAI Agents trace` and `Task` spans
 * around it are not), `Turn {turn} …` a loop step, `Function: {name}` a tool call, and a handoff's
 * receiving agent (`Handoff: {from_agent} → {to_agent}`) continues the run; the SDK's `group_id`
 * (on the trace span) is the conversation.
 */
export const logfireReader: ConventionReader = {
  convention: 'logfire',
  matches: isLogfireSpan,
  role(span): SpanRole {
    if (span.attributes['logfire.span_type'] === 'pending_span') return 'other'
    if (genAiReader.role(span) === 'model') return 'model'
    if (!isOpenAiAgentsScope(span)) return 'other'
    const name = template(span)
    if (name === AGENT_RUN) return 'agent'
    if (name === FUNCTION) return 'tool'
    if (name?.startsWith('Turn {turn} ')) return 'step'
    // The SDK's Chat Completions model writes no `gen_ai.operation.name`.
    if (name?.startsWith('Chat completion with ')) return 'model'
    return 'other'
  },
  runContinuations: handoffChain,
  identity(span, tree): AgentIdentity {
    if (!isAgentsSpan(span, AGENT_RUN)) return {}
    const agentName = readString(span.attributes, 'name')
    // The OpenAI Agents SDK's conversation (`group_id`) is on its trace span, above the agent span.
    for (let above = tree?.parentOf(span); above; above = tree?.parentOf(above)) {
      if (isAgentsSpan(above, AGENTS_TRACE))
        return { agentName, conversationId: readString(above.attributes, 'group_id') }
    }
    return { agentName }
  },
  instructions: () => undefined,
  agentInput: () => undefined,
  agentOutput: () => undefined,
  modelInput(span, notes) {
    const genAi = genAiReader.modelInput(span, notes)
    if (genAi) return genAi
    const messages = conversation(span, notes)
    return messages?.slice(0, answerStart(messages))
  },
  modelOutput(span, notes) {
    const genAi = genAiReader.modelOutput(span, notes)
    if (genAi) return genAi
    const messages = conversation(span, notes)
    const answer = messages?.slice(answerStart(messages))
    return answer && answer.length > 0 ? answer : responseMessage(span, notes)
  },
  toolCall(span, notes) {
    const input = logfireValue(span, 'input', notes)
    return {
      toolName: readString(span.attributes, 'name'),
      // The SDK records the arguments as the JSON text the model sent.
      args:
        typeof input === 'string'
          ? parseJsonValue(input, { notes, what: `input of span ${span.spanId}` })
          : input,
      result: logfireValue(span, 'output', notes),
      hasResult: hasAttribute(span.attributes, 'output'),
    }
  },
  toolError(span) {
    // `error`: the SDK's `{"message": "Error running tool (non-fatal)", "data": {"error": "<message>"}}`.
    const error = parseJsonValue(span.attributes.error)
    if (!isRecord(error)) return undefined
    if (isRecord(error.data) && typeof error.data.error === 'string') return error.data.error
    return typeof error.message === 'string' ? error.message : undefined
  },
  metadata: () => ({}),
}

/**
 * The agents a handoff chain passed through after `run`: an agent whose own turns hold a
 * `Handoff` span handed the conversation to the next sibling `Agent run` span that started after
 * it (the span names the agent too, but the order is enough and survives a lost name).
 */
function handoffChain(run: Span, tree: SpanTree): Span[] {
  const parent = tree.parentOf(run)
  if (!parent) return []
  const siblings = tree
    .children(parent.spanId)
    .filter((span) => isAgentsSpan(span, AGENT_RUN))
    .sort(byStart)
  const chain: Span[] = []
  for (let handoff = ownHandoff(run, tree); handoff; ) {
    const from: Span = handoff
    const next = siblings.find((span) => byStart(from, span) < 0 && span !== run && !chain.includes(span))
    if (!next) break
    chain.push(next)
    handoff = ownHandoff(next, tree)
  }
  return chain
}

/** The `Handoff` span in an agent's own turns (not in agents nested under it), if any. */
function ownHandoff(agent: Span, tree: SpanTree): Span | undefined {
  let found: Span | undefined
  walkBelow(tree, agent, (span) => {
    if (isAgentsSpan(span, AGENT_RUN)) return 'skip'
    if (!isAgentsSpan(span, HANDOFF)) return undefined
    found = span
    return 'stop'
  })
  return found
}
