import type { Span } from '../../model/index.ts'
import { parsePythonLiteral } from '../python-literal.ts'
import { hasAttribute, isRecord } from '../read-attribute.ts'
import { byStart, type SpanTree } from '../span-tree.ts'
import type { ConventionReader, SpanRole } from './convention-reader.ts'
import { kind, openInferenceReader, roleOfKind } from './openinference.ts'

/** The instrumentation scope of `openinference-instrumentation-openai-agents`. */
const SCOPE = 'openinference.instrumentation.openai_agents'

/** A handoff span (`handoff to <agent>`): it marks the transfer, the call is in the model messages. */
function isHandoff(span: Span): boolean {
  return kind(span) === 'TOOL' && span.name.startsWith('handoff to ')
}

/**
 * OpenAI Agents SDK traced by OpenInference. One `Runner.run` is an `Agent workflow` AGENT
 * wrapper (no messages: not a run) around a workflow CHAIN holding one AGENT span per agent that
 * took part. A handoff's receiving agent is a later sibling AGENT naming the agent it came from
 * in `graph.node.parent_id`: it continues the run of the agent the program invoked. A tool error
 * is an SDK envelope, a Python dict repr holding the tool's message.
 */
export const openAiAgentsReader: ConventionReader = {
  ...openInferenceReader,
  matches: (span) => span.scope.name === SCOPE && openInferenceReader.matches(span),
  role: (span): SpanRole => roleOfKind(span, 'other', (tool) => !isHandoff(tool)),
  confirmRun: undefined,
  runContinuations: handoffChain,
  toolError(span) {
    // `Error running tool (non-fatal): {'tool_name': …, 'error': '<message>'}`: a Python dict repr.
    const message = span.status.message ?? ''
    const brace = message.indexOf('{')
    const envelope = brace < 0 ? undefined : parsePythonLiteral(message.slice(brace))
    return isRecord(envelope) && typeof envelope.error === 'string' ? envelope.error : undefined
  },
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
