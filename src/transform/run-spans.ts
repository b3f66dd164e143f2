import type { Span } from '../model/index.ts'
import { spanRole } from './detect-convention.ts'
import { byStart, type SpanTree } from './span-tree.ts'

/** The spans that belong to one agent run, each list earliest start first. */
export interface RunSpans {
  models: Span[]
  tools: Span[]
}

/**
 * Collects the model and tool spans anywhere under an agent span, stopping at nested agent
 * spans (they are runs of their own; the tool span that called them stays in this run).
 * `adopted` are extra subtrees whose parent is missing but which belong to this run.
 */
export function collectRunSpans(tree: SpanTree, agent: Span, adopted: readonly Span[] = []): RunSpans {
  const models: Span[] = []
  const tools: Span[] = []
  const visited = new Set<string>([agent.spanId])
  const stack: Span[] = [...tree.children(agent.spanId), ...adopted]
  while (stack.length > 0) {
    const span = stack.pop()!
    if (visited.has(span.spanId)) continue
    visited.add(span.spanId)
    const role = spanRole(span)
    if (role === 'agent') continue
    if (role === 'model') models.push(span)
    else if (role === 'tool') tools.push(span)
    stack.push(...tree.children(span.spanId))
  }
  return { models: models.sort(byStart), tools: tools.sort(byStart) }
}

/** The nearest enclosing agent-run span of a span, if its ancestors are all present. */
export function enclosingAgent(tree: SpanTree, span: Span): Span | undefined {
  const seen = new Set<string>([span.spanId])
  let parentId = span.parentSpanId
  while (parentId && !seen.has(parentId)) {
    seen.add(parentId)
    const parent = tree.byId.get(parentId)
    if (!parent) return undefined
    if (spanRole(parent) === 'agent') return parent
    parentId = parent.parentSpanId
  }
  return undefined
}
