import type { Span } from '../../model/index.ts'
import { hasAttribute } from '../read-attribute.ts'
import { byStart, type SpanTree } from '../span-tree.ts'
import type { ConventionReader, SpanRole } from './convention-reader.ts'
import { kind, openInferenceReader, roleOfKind } from './openinference.ts'

/** The instrumentation scope of `openinference-instrumentation-openai-agents` (Python). */
const SCOPE = 'openinference.instrumentation.openai_agents'
/** The scope of `@arizeai/openinference-instrumentation-openai-agents` (JavaScript, `@openai/agents`). */
const JS_SCOPE = '@arizeai/openinference-instrumentation-openai-agents'

/**
 * The JavaScript processor's span for the SDK trace (`Agent workflow`): an AGENT span without the
 * `graph.node.id` every agent's span has. It wraps one `run()` and only carries copies of the
 * first prompt and the last answer, so it is no run (read by structure: cut attributes leave it).
 */
function isJsTraceWrapper(span: Span): boolean {
  return (
    span.scope.name === JS_SCOPE && kind(span) === 'AGENT' && !hasAttribute(span.attributes, 'graph.node.id')
  )
}

/** A handoff span (`handoff to <agent>`): it marks the transfer, the call is in the model messages. */
function isHandoff(span: Span): boolean {
  return kind(span) === 'TOOL' && span.name.startsWith('handoff to ')
}

/**
 * OpenAI Agents SDK traced by OpenInference. One `Runner.run` is an `Agent workflow` AGENT
 * wrapper (no messages: not a run) around a workflow CHAIN holding one AGENT span per agent that
 * took part. A handoff's receiving agent is a later sibling AGENT naming the agent it came from
 * in `graph.node.parent_id`: it continues the run of the agent the program invoked. A tool error
 * is an SDK envelope (a Python dict repr or JSON) holding the tool's message, which every tool
 * error's reading takes off (`tool-value.ts`). The JavaScript SDK's spans
 * (`@openai/agents`) have the same shape; there the wrapper also carries the first prompt and the
 * last answer of its trace (copies: not a run) and the AGENT span no agent name (the span name is
 * the agent's).
 */
export const openAiAgentsReader: ConventionReader = {
  ...openInferenceReader,
  matches: (span) =>
    (span.scope.name === SCOPE || span.scope.name === JS_SCOPE) && openInferenceReader.matches(span),
  role: (span): SpanRole =>
    isJsTraceWrapper(span) ? 'other' : roleOfKind(span, 'other', (tool) => !isHandoff(tool)),
  confirmRun: undefined,
  runContinuations: handoffChain,
}

/**
 * The agents a handoff chain passed through after `run`: its later sibling agents, up to the
 * first that names no agent it came from (`graph.node.parent_id`), which starts another
 * `Runner.run` under the same trace.
 */
function handoffChain(run: Span, tree: SpanTree): Span[] {
  const parentId = run.parentSpanId
  if (!parentId || hasAttribute(run.attributes, 'graph.node.parent_id')) return []
  const later = tree
    .children(parentId)
    .filter((span) => span !== run && kind(span) === 'AGENT' && byStart(run, span) < 0)
    .sort(byStart)
  const chain: Span[] = []
  for (const span of later) {
    if (!hasAttribute(span.attributes, 'graph.node.parent_id')) break
    chain.push(span)
  }
  return chain
}
