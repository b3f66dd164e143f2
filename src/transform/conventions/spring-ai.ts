import { readString } from '../read-attribute.ts'
import type { ConventionReader, SpanRole } from './convention-reader.ts'
import { genAiReader, toolCallFromKeys } from './genai.ts'

/**
 * Spring AI's Micrometer observations exported through a tracing bridge (OpenTelemetry or
 * Brave): GenAI-style keys where the GenAI conventions have them, Spring's own `spring.ai.*`
 * keys where they do not. Chosen by `spring.ai.kind`: the ChatClient call (`chat_client`,
 * `gen_ai.operation.name` `framework`) is the run, `tool_call` spans are its tools
 * (`spring.ai.tool.*` keys), advisors and vector stores are neither. Model calls are plain GenAI
 * `chat` spans, read by the `genai` reader. Prompt and completion text go to logs, not spans, so
 * a run has its tool calls but no messages or text.
 */
export const springAiReader: ConventionReader = {
  ...genAiReader,
  matches: (span) => typeof span.attributes['spring.ai.kind'] === 'string',
  role(span): SpanRole {
    const kind = readString(span.attributes, 'spring.ai.kind')
    if (kind === 'chat_client') return 'agent'
    if (kind === 'tool_call') return 'tool'
    return 'other'
  },
  identity: (span) => ({
    // Set when a chat memory advisor keeps the conversation.
    conversationId:
      readString(span.attributes, 'spring.ai.chat.client.conversation.id') ??
      genAiReader.identity(span).conversationId,
  }),
  toolCall: (span, notes) =>
    toolCallFromKeys(span, notes, {
      id: 'spring.ai.tool.call.id',
      name: 'spring.ai.tool.definition.name',
      args: 'spring.ai.tool.call.arguments',
      result: 'spring.ai.tool.call.result',
    }),
}
