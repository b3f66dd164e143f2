import type { Span } from '../model/index.ts'
import { spanRole } from './detect-convention.ts'
import { readString } from './read-attribute.ts'
import { buildSpanTree, byStart, type SpanTree } from './span-tree.ts'

/**
 * Whether a span may be the span of one agent run (a turn of one agent), in any known
 * convention. True for every agent span; an OpenInference root `CHAIN` is a candidate that
 * `findAgentSpans` confirms with the rest of its trace.
 */
export function isAgentRunSpan(span: Span): boolean {
  return spanRole(span) === 'agent'
}

/** The agent-run spans among `spans` (the spans `extractAgentRuns` gives runs for), earliest first. */
export function findAgentSpans(spans: readonly Span[]): Span[] {
  const byTrace = new Map<string, Span[]>()
  for (const span of spans) {
    const list = byTrace.get(span.traceId)
    if (list) list.push(span)
    else byTrace.set(span.traceId, [span])
  }
  return [...byTrace.values()].flatMap((trace) => agentSpansOf(buildSpanTree(trace))).sort(byStart)
}

/**
 * The agent-run spans of one trace, earliest first. An OpenInference root chain is a run only
 * when it calls a model and holds no agent span itself (otherwise its agents are the runs).
 */
export function agentSpansOf(tree: SpanTree): Span[] {
  return [...tree.byId.values()]
    .filter((span) => isAgentRunSpan(span) && (!isRootChain(span) || chainActsAsAgent(tree, span)))
    .sort(byStart)
}

function isRootChain(span: Span): boolean {
  return readString(span.attributes, 'openinference.span.kind')?.toUpperCase() === 'CHAIN'
}

function chainActsAsAgent(tree: SpanTree, chain: Span): boolean {
  let callsModel = false
  const seen = new Set<string>([chain.spanId])
  const stack = [...tree.children(chain.spanId)]
  while (stack.length > 0) {
    const span = stack.pop()!
    if (seen.has(span.spanId)) continue
    seen.add(span.spanId)
    const role = spanRole(span)
    if (role === 'agent') return false
    if (role === 'model') callsModel = true
    for (const child of tree.children(span.spanId)) stack.push(child)
  }
  return callsModel
}
