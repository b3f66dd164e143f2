import type { Span } from '../../model/index.ts'
import { readString } from '../read-attribute.ts'
import { byStart, type SpanTree } from '../span-tree.ts'
import type { ConventionReader } from './convention-reader.ts'
import { genAiReader } from './genai.ts'
import { traceloopReader } from './traceloop.ts'

/** The instrumentation scope of OpenLLMetry's `opentelemetry-instrumentation-langchain`. */
const SCOPE = 'opentelemetry.instrumentation.langchain'

/** A LangGraph graph invocation span (`invoke_agent <graph>`, no `traceloop.span.kind`). */
function isGraphSpan(span: Span): boolean {
  return (
    span.attributes['gen_ai.operation.name'] === 'invoke_agent' &&
    span.attributes['traceloop.span.kind'] === undefined
  )
}

/** The reader of a span of this instrumentation: GenAI for its GenAI-only spans, else Traceloop. */
function readerOf(span: Span): ConventionReader {
  return traceloopReader.matches(span) ? traceloopReader : genAiReader
}

/**
 * OpenLLMetry's LangChain instrumentation (`opentelemetry-instrumentation-langchain`): Traceloop
 * spans from LangChain callbacks (`<graph>.workflow`, `execute_task <node>`, `execute_tool
 * <tool>`), GenAI model spans, and for LangGraph a GenAI `invoke_agent <graph>` span per graph
 * invocation. That span is the parent of the graph's root chain, except for a graph invoked from
 * inside a tool: the chain then follows the callback parent (the tool span) and the graph span is
 * left empty beside it. Such an empty graph span heads the run, continued by that sibling chain.
 */
export const openLlmetryLangChainReader: ConventionReader = {
  ...traceloopReader,
  matches: (span) =>
    span.scope.name === SCOPE && (traceloopReader.matches(span) || genAiReader.matches(span)),
  role: (span) => readerOf(span).role(span),
  confirmRun: (span, tree) => readerOf(span).confirmRun?.(span, tree) ?? true,
  runContinuations: detachedChain,
  identity: (span) => readerOf(span).identity(span),
  instructions: (span, notes) => readerOf(span).instructions(span, notes),
  agentInput: (span, notes) => readerOf(span).agentInput(span, notes),
  agentOutput: (span, notes) => readerOf(span).agentOutput(span, notes),
  modelInput: (span, notes) => readerOf(span).modelInput(span, notes),
  modelOutput: (span, notes) => readerOf(span).modelOutput(span, notes),
  toolCall: (span, notes) => readerOf(span).toolCall(span, notes),
  metadata: (span, notes) => readerOf(span).metadata(span, notes),
}

/**
 * The root chain of an empty graph span's invocation: the first later sibling Traceloop span
 * named after the graph (`execute_task <graph>` / entity name), which LangChain's callbacks
 * parented to the caller instead of the graph span.
 */
function detachedChain(graph: Span, tree: SpanTree): Span[] {
  if (!isGraphSpan(graph) || tree.children(graph.spanId).length > 0) return []
  const parent = tree.parentOf(graph)
  const name = readString(graph.attributes, 'gen_ai.agent.name')
  if (!parent || name === undefined) return []
  const chain = tree
    .children(parent.spanId)
    .filter(
      (span) =>
        span !== graph &&
        byStart(graph, span) <= 0 &&
        traceloopReader.matches(span) &&
        readString(span.attributes, 'traceloop.entity.name') === name,
    )
    .sort(byStart)[0]
  return chain ? [chain] : []
}
