import type { Attributes, AttributeValue, Span } from '../../model/index.ts'
import type { ChatMessage } from '../chat-message.ts'
import type { Notes } from '../notes.ts'
import { parseMessages, parsePromptInput } from '../parse-messages.ts'
import { hasAttribute, indexed, isRecord, parseJsonValue, readJson, readString } from '../read-attribute.ts'
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

/**
 * Whether a tool span's `traceloop.entity.input` is the LangChain callback wrapper OpenLLMetry's
 * LangChain instrumentation writes (`{"input_str": "<Python repr>", "tags", "metadata", "inputs",
 * "kwargs"}`) rather than the arguments.
 */
function isCallbackWrapper(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && typeof value.input_str === 'string' && ('tags' in value || 'metadata' in value)
}

/** The LangChain callback output wrapper `{"output": <serialized ToolMessage>, "kwargs"}`: the message's fields. */
function callbackToolMessage(value: unknown): Record<string, unknown> | undefined {
  if (!isRecord(value) || !isRecord(value.output) || !('kwargs' in value)) return undefined
  const message = value.output
  const className = Array.isArray(message.id) ? message.id[message.id.length - 1] : undefined
  return className === 'ToolMessage' && isRecord(message.kwargs) ? message.kwargs : undefined
}

/** Indexed messages (`gen_ai.prompt.N.*`, `gen_ai.completion.N.*`) as OpenAI-shaped chat messages. */
export function indexedMessages(attributes: Attributes, prefix: string): ChatMessage[] | undefined {
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
    const input = entity(span, 'input', notes)
    const output = entity(span, 'output', notes)
    const wrapper = isCallbackWrapper(input) ? input : undefined
    const message = callbackToolMessage(output)
    const callId =
      message?.tool_call_id ?? (isRecord(wrapper?.kwargs) ? wrapper.kwargs.tool_call_id : undefined)
    return {
      toolCallId: typeof callId === 'string' ? callId : undefined,
      toolName: readString(attributes, 'gen_ai.tool.name') ?? readString(attributes, 'traceloop.entity.name'),
      // A callback wrapper is not the arguments: the model's tool call is the next source.
      args: wrapper ? undefined : fromEnvelope(input),
      // A returned ToolMessage holds the tool's value as text (JSON for a dict).
      result: message ? parseJsonValue(message.content as AttributeValue) : output,
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
