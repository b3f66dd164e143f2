import type { Span } from '../model/index.ts'
import { spanRole } from './detect-convention.ts'
import { byStart, compareNanos, type SpanTree } from './span-tree.ts'

/** The spans that belong to one agent run, each list earliest start first. */
export interface RunSpans {
  models: Span[]
  tools: Span[]
  /**
   * The steps of the agent loop: step spans when the convention has them (GenAI `agent_step`,
   * Mastra `model_step`), else the model calls themselves.
   */
  steps: Span[]
  /** The step a span belongs to (its nearest step ancestor, or itself), if any. */
  stepOf(span: Span): number | undefined
  /** The last step that started at or before a time. */
  stepAt(timeUnixNano: string): number | undefined
}

/**
 * Collects the spans anywhere under an agent span, stopping at the spans of nested runs (`isRun`;
 * the tool span that called them stays in this run). `adopted` are extra
 * subtrees whose parent is missing but which belong to this run.
 */
export function collectRunSpans(
  tree: SpanTree,
  agent: Span,
  isRun: (span: Span) => boolean,
  adopted: readonly Span[] = [],
): RunSpans {
  const models: Span[] = []
  const tools: Span[] = []
  const stepSpans: Span[] = []
  const parentOf = new Map<string, string>()
  const visited = new Set<string>([agent.spanId])
  const stack: Span[] = [...tree.children(agent.spanId), ...adopted]
  while (stack.length > 0) {
    const span = stack.pop()!
    if (visited.has(span.spanId)) continue
    visited.add(span.spanId)
    if (isRun(span)) continue
    const role = spanRole(span)
    if (role === 'model') models.push(span)
    else if (role === 'tool') tools.push(span)
    else if (role === 'step') stepSpans.push(span)
    for (const child of tree.children(span.spanId)) {
      parentOf.set(child.spanId, span.spanId)
      stack.push(child)
    }
  }
  models.sort(byStart)
  tools.sort(byStart)
  const steps = (stepSpans.length > 0 ? stepSpans : models).sort(byStart)
  const index = new Map(steps.map((step, position) => [step.spanId, position]))
  return {
    models,
    tools,
    steps,
    stepOf(span) {
      let id: string | undefined = span.spanId
      while (id !== undefined) {
        const position = index.get(id)
        if (position !== undefined) return position
        id = parentOf.get(id)
      }
      return undefined
    },
    stepAt(timeUnixNano) {
      // Binary search: the last step that started at or before the time.
      let low = 0
      let high = steps.length
      while (low < high) {
        const middle = (low + high) >> 1
        if (compareNanos(steps[middle]!.startTimeUnixNano, timeUnixNano) <= 0) low = middle + 1
        else high = middle
      }
      return low > 0 ? low - 1 : undefined
    },
  }
}

/** The nearest enclosing agent-run span of a span, if its ancestors are all present. */
export function enclosingAgent(tree: SpanTree, span: Span, isRun: (span: Span) => boolean): Span | undefined {
  const seen = new Set<string>([span.spanId])
  let parentId = span.parentSpanId
  while (parentId && !seen.has(parentId)) {
    seen.add(parentId)
    const parent = tree.byId.get(parentId)
    if (!parent) return undefined
    if (isRun(parent)) return parent
    parentId = parent.parentSpanId
  }
  return undefined
}
