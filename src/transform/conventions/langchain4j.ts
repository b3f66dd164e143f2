import type { Span } from '../../model/index.ts'
import { hasAttribute, readString } from '../read-attribute.ts'
import { exceptionMessage } from '../span-error.ts'
import type { ConventionReader, SpanRole } from './convention-reader.ts'
import { genAiReader } from './genai.ts'

/** The span of one AI service method call: `langchain4j.aiservices.<Interface>.<method>`. */
const SERVICE_PREFIX = 'langchain4j.aiservices.'
/** Tool spans: `langchain4j.tools.<tool>` (GenAI `execute_tool` keys). */
const TOOL_PREFIX = 'langchain4j.tools.'
/** Model spans: `completion <model>`, with `gen_ai.request.model` (no operation name before 1.8). */
const MODEL_PREFIX = 'completion '

function isModelSpan(span: Span): boolean {
  return span.name.startsWith(MODEL_PREFIX) && typeof span.attributes['gen_ai.request.model'] === 'string'
}

/**
 * Quarkus LangChain4j (its own GenAI-style spans, `quarkus.langchain4j.tracing.*`). Departs from
 * the GenAI conventions in three ways: the run is an AI service method span that has no
 * attributes at all (the agent name is the interface in its name); model spans are named
 * `completion <model>` and, before 1.8, have no `gen_ai.operation.name`; and content is legacy
 * text: `gen_ai.completion` is the answer's text, `gen_ai.prompt` every message's text joined
 * with newlines, which cannot be split back into messages, so no prompt is read from it. A
 * failure is only an `exception` event (the status stays unset).
 */
export const langChain4jReader: ConventionReader = {
  ...genAiReader,
  matches: (span) =>
    span.name.startsWith(SERVICE_PREFIX) ||
    (span.name.startsWith(TOOL_PREFIX) && genAiReader.matches(span)) ||
    isModelSpan(span),
  role(span): SpanRole {
    if (span.name.startsWith(SERVICE_PREFIX)) return 'agent'
    if (isModelSpan(span) && !hasAttribute(span.attributes, 'gen_ai.operation.name')) return 'model'
    return genAiReader.role(span)
  },
  identity(span) {
    if (!span.name.startsWith(SERVICE_PREFIX)) return genAiReader.identity(span)
    const method = span.name.slice(SERVICE_PREFIX.length)
    const end = method.lastIndexOf('.')
    return { agentName: end > 0 ? method.slice(0, end) : method }
  },
  modelInput(span, notes) {
    if (hasAttribute(span.attributes, 'gen_ai.prompt'))
      notes.add(`prompt of span ${span.spanId} recorded only as flattened text (gen_ai.prompt), not read`)
    return undefined
  },
  modelOutput(span, notes) {
    const text = readString(span.attributes, 'gen_ai.completion')
    if (text === undefined) return genAiReader.modelOutput(span, notes)
    return [{ role: 'assistant', parts: [{ type: 'text', text }] }]
  },
  failure: exceptionMessage,
}
