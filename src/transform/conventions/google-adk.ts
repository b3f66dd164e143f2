import type { Span } from '../../model/index.ts'
import type { ChatMessage } from '../chat-message.ts'
import { parseMessages } from '../parse-messages.ts'
import { isRecord, readJson, readString } from '../read-attribute.ts'
import { byStart, type SpanTree } from '../span-tree.ts'
import type { ConventionReader } from './convention-reader.ts'
import { genAiReader, genAiSpanReader } from './genai.ts'

/** The instrumentation scope of Google ADK's own spans. */
export const ADK_SCOPE = 'gcp.vertex.agent'

/** Where ADK's own text starts in an agent's system instruction (after the program's). */
const ADK_TEXT = '\n\nYou are an agent. Your internal name is '

const operation = (span: Span) => readString(span.attributes, 'gen_ai.operation.name')

/**
 * Google ADK (native GenAI spans). One `invoke_workflow` per runner invocation (a wrapper) holds
 * the `invoke_agent` spans of the agents that took part: a transfer (`transfer_to_agent`) puts
 * the receiving agent next to the first as a later sibling, and it continues the first one's
 * run. ADK appends its own text to the program's instruction, and a streamed model call records
 * every partial response before the complete one (the one with a finish reason).
 */
export const googleAdkReader: ConventionReader = {
  ...genAiSpanReader,
  matches: (span) => span.scope.name === ADK_SCOPE && genAiReader.matches(span),
  runContinuations: transferChain,
  modelInput(span, notes) {
    return genAiReader
      .modelInput(span, notes)
      ?.map((message) => (message.role === 'system' ? programText(message) : message))
  },
  modelOutput(span, notes) {
    const raw = readJson(span.attributes, 'gen_ai.output.messages', notes, span.spanId)
    const finished = Array.isArray(raw)
      ? raw.filter(
          (item) => isRecord(item) && typeof item.finish_reason === 'string' && item.finish_reason.length > 0,
        )
      : []
    return finished.length > 0 ? parseMessages(finished) : genAiReader.modelOutput(span, notes)
  },
}

/** A system message without ADK's own text after the program's instruction. */
export function programText(message: ChatMessage): ChatMessage {
  return {
    role: message.role,
    parts: message.parts.map((part) => {
      if (part.type !== 'text') return part
      const end = part.text.indexOf(ADK_TEXT)
      return end < 0 ? part : { type: 'text', text: part.text.slice(0, end) }
    }),
  }
}

/** The agents a transfer chain passed through after `run`: its later siblings under the same `invoke_workflow`. */
function transferChain(run: Span, tree: SpanTree): Span[] {
  const parent = run.parentSpanId ? tree.byId.get(run.parentSpanId) : undefined
  if (!parent || operation(parent) !== 'invoke_workflow') return []
  return tree
    .children(parent.spanId)
    .filter((span) => span !== run && operation(span) === 'invoke_agent' && byStart(run, span) < 0)
    .sort(byStart)
}
