import type { Attributes, Span } from '../../model/index.ts'
import type { ChatMessage } from '../chat-message.ts'
import type { Notes } from '../notes.ts'
import { parseMessages, parsePromptInput } from '../parse-messages.ts'
import { hasAttribute, indexed, isRecord, readJson, readString } from '../read-attribute.ts'
import { type SpanTree, walkBelow } from '../span-tree.ts'
import type { ConventionReader, SpanRole } from './convention-reader.ts'
import { genAiReader } from './genai.ts'
import { prefixedMetadata } from './prefixed-metadata.ts'

const ASSOCIATION = 'traceloop.association.properties'

function spanKind(span: Span): string | undefined {
  return readString(span.attributes, 'traceloop.span.kind')
}

/** A legacy LLM span of an OpenLLMetry instrumentation (`llm.request.type`, indexed prompts). */
function isLegacyModel(span: Span): boolean {
  const type = readString(span.attributes, 'llm.request.type')
  return type === 'chat' || type === 'completion'
}

/**
 * The value of a decorated function's call envelope `{"args": [...], "kwargs": {...}}`: the
 * keyword arguments as an object, else the positional ones (one alone is itself).
 */
function fromEnvelope(value: unknown): unknown {
  if (!isRecord(value) || !Array.isArray(value.args) || !isRecord(value.kwargs)) return value
  if (Object.keys(value.kwargs).length > 0) return value.kwargs
  return value.args.length === 1 ? value.args[0] : value.args
}

/** Indexed messages (`gen_ai.prompt.N.*`, `gen_ai.completion.N.*`) as OpenAI-shaped chat messages. */
function indexedMessages(attributes: Attributes, prefix: string): ChatMessage[] | undefined {
  const groups = indexed(attributes, prefix)
  if (groups.size === 0) return undefined
  const raw = [...groups.values()].map((group) => {
    const message: Record<string, unknown> = { role: group.role ?? 'assistant', content: group.content ?? '' }
    const calls = [...indexed(group, 'tool_calls').values()]
    if (calls.length > 0) {
      message.tool_calls = calls.map((call) => ({
        id: call.id,
        function: { name: call.name, arguments: call.arguments },
      }))
    }
    if (typeof group.tool_call_id === 'string') message.tool_call_id = group.tool_call_id
    return message
  })
  return parseMessages(raw)
}

/**
 * OpenLLMetry / Traceloop (`traceloop-sdk`): decorator spans with `traceloop.span.kind`
 * (`workflow`, `agent`, `tool`, `task`) and the decorated function's call envelope and return
 * value as `traceloop.entity.input` / `output`; LLM spans either GenAI (current releases, read by
 * the GenAI reader) or with indexed `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` (older). An
 * `agent` span is a run; a `workflow` span is one only when no agent runs inside it.
 */
export const traceloopReader: ConventionReader = {
  convention: 'traceloop',
  matches: (span) => spanKind(span) !== undefined || isLegacyModel(span),
  role(span): SpanRole {
    const kind = spanKind(span)
    if (kind === 'agent' || kind === 'workflow') return 'agent'
    if (kind === 'tool') return 'tool'
    if (kind === undefined && isLegacyModel(span)) return 'model'
    return 'other'
  },
  confirmRun: (span, tree) => spanKind(span) !== 'workflow' || workflowActsAsAgent(tree, span),
  identity(span) {
    const attributes = span.attributes
    return {
      agentName:
        readString(attributes, 'gen_ai.agent.name') ?? readString(attributes, 'traceloop.entity.name'),
      conversationId:
        readString(attributes, `${ASSOCIATION}.session_id`) ??
        readString(attributes, `${ASSOCIATION}.conversation_id`) ??
        readString(attributes, `${ASSOCIATION}.thread_id`),
    }
  },
  instructions: () => undefined,
  agentInput: (span, notes) => parsePromptInput(fromEnvelope(entity(span, 'input', notes))),
  agentOutput(span, notes) {
    const value = entity(span, 'output', notes)
    if (typeof value === 'string') return [{ role: 'assistant', parts: [{ type: 'text', text: value }] }]
    return isRecord(value) || Array.isArray(value) ? parseMessages(value) : undefined
  },
  modelInput: (span, notes) =>
    indexedMessages(span.attributes, 'gen_ai.prompt') ?? genAiReader.modelInput(span, notes),
  modelOutput: (span, notes) =>
    indexedMessages(span.attributes, 'gen_ai.completion') ?? genAiReader.modelOutput(span, notes),
  toolCall(span, notes) {
    const attributes = span.attributes
    return {
      toolName: readString(attributes, 'gen_ai.tool.name') ?? readString(attributes, 'traceloop.entity.name'),
      args: fromEnvelope(entity(span, 'input', notes)),
      result: entity(span, 'output', notes),
      hasResult: hasAttribute(attributes, 'traceloop.entity.output'),
    }
  },
  metadata: (span) => prefixedMetadata(span.attributes, ASSOCIATION),
}

function entity(span: Span, which: 'input' | 'output', notes: Notes): unknown {
  return readJson(span.attributes, `traceloop.entity.${which}`, notes, span.spanId)
}

/** A workflow is the run when it calls a model itself and holds no `agent` span (else its agents are). */
function workflowActsAsAgent(tree: SpanTree, workflow: Span): boolean {
  let callsModel = false
  const holdsAgent = walkBelow(tree, workflow, (span) => {
    if (isLegacyModel(span) || genAiReader.role(span) === 'model') callsModel = true
    return spanKind(span) === 'agent' ? 'stop' : undefined
  })
  return callsModel && !holdsAgent
}
