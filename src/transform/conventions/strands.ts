import { type ChatMessage, toolResultPart } from '../chat-message.ts'
import { parseArgs } from '../parse-messages.ts'
import { hasAttribute, isRecord, parseJsonValue, readJson, readString } from '../read-attribute.ts'
import { type ConventionReader, changedCall, type SpanRole } from './convention-reader.ts'
import { genAiReader } from './genai.ts'

/** The instrumentation scope of Strands Agents' own tracer. */
const SCOPE = 'strands.telemetry.tracer'

/**
 * Strands Agents (native GenAI spans). One `execute_event_loop_cycle` span per model turn (a
 * step). Tool results are Bedrock-style content blocks (`[{"text": "<JSON>"}]`) wherever they
 * appear; the value is unwrapped from them. In the default layout a tool span keeps its
 * arguments and result in span events (`gen_ai.tool.message`, `gen_ai.choice`), not attributes.
 * The run's final text is `str(AgentResult)`, with a trailing newline.
 */
export const strandsReader: ConventionReader = {
  ...genAiReader,
  matches: (span) => span.scope.name === SCOPE && genAiReader.matches(span),
  role(span): SpanRole {
    if (readString(span.attributes, 'gen_ai.operation.name') === 'execute_event_loop_cycle') return 'step'
    return genAiReader.role(span)
  },
  agentInput: (span, notes) => unwrapResults(genAiReader.agentInput(span, notes)),
  agentOutput(span, notes) {
    const output = genAiReader.agentOutput(span, notes)
    return output?.map((message) => ({
      role: message.role,
      parts: message.parts.map((part) =>
        part.type === 'text' ? { type: 'text', text: part.text.replace(/\n$/, '') } : part,
      ),
    }))
  },
  modelInput: (span, notes) => unwrapResults(genAiReader.modelInput(span, notes)),
  modelOutput: (span, notes) => unwrapResults(genAiReader.modelOutput(span, notes)),
  toolCall(span, notes) {
    const call = genAiReader.toolCall(span, notes)
    if (hasAttribute(span.attributes, 'gen_ai.tool.call.result'))
      return changedCall(call, { result: unwrapBlocks(call.result) })
    // Default layout: the arguments and the result are events of the tool span.
    const argsEvent = span.events.find((event) => event.name === 'gen_ai.tool.message')
    const resultEvent = span.events.find((event) => event.name === 'gen_ai.choice')
    const args = argsEvent ? readJson(argsEvent.attributes, 'content', notes, span.spanId) : undefined
    const result = resultEvent ? readJson(resultEvent.attributes, 'message', notes, span.spanId) : undefined
    return changedCall(call, {
      toolCallId: call.toolCallId ?? (argsEvent ? readString(argsEvent.attributes, 'id') : undefined),
      ...(call.args === undefined && args !== undefined ? { args: parseArgs(args) } : {}),
      ...(resultEvent ? { result: unwrapBlocks(result), hasResult: true } : {}),
    })
  },
}

/**
 * A tool result's value from Strands content blocks: one `{text}` block is its text (JSON
 * parsed), one `{json}` block its value; several blocks stay a list of those values.
 */
function unwrapBlocks(value: unknown): unknown {
  if (!Array.isArray(value) || value.length === 0) return value
  if (!value.every((block) => isRecord(block) && ('text' in block || 'json' in block))) return value
  const values = value.map((block: Record<string, unknown>) =>
    'json' in block ? block.json : parseJsonValue(String(block.text)),
  )
  return values.length === 1 ? values[0] : values
}

/** The messages with every tool result's content blocks unwrapped. */
function unwrapResults(messages: ChatMessage[] | undefined): ChatMessage[] | undefined {
  return messages?.map((message) => ({
    role: message.role,
    parts: message.parts.map((part) =>
      part.type === 'tool-result'
        ? toolResultPart(part.toolCallId, part.toolName, unwrapBlocks(part.result), part.isError === true)
        : part,
    ),
  }))
}
