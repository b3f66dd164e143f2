import { type Span, StatusCode } from '../model/index.ts'
import { spanRole } from './detect-convention.ts'
import { plainAttributes } from './read-attribute.ts'
import { byStart, compareNanos, type SpanTree } from './span-tree.ts'

/** The spans that belong to one agent run, each list earliest start first. */
export interface RunSpans {
  models: Span[]
  tools: Span[]
  /**
   * The spans in error status that are neither model calls, tool spans nor steps (a tool's own
   * decorator span that no reader takes for a tool span: `tool-calls.ts` matches them by name).
   */
  failed: Span[]
  /**
   * The steps of the agent loop: step spans when the convention has them (GenAI `agent_step`,
   * Mastra `model_step`), else the model calls themselves.
   */
  steps: Span[]
  /** Whether the steps are step spans (else they are the model calls). */
  hasStepSpans: boolean
  /** The step a span belongs to (its nearest step ancestor, or itself), if any. */
  stepOf(span: Span): number | undefined
  /** The last step that started at or before a time. */
  stepAt(timeUnixNano: string): number | undefined
}

/**
 * Collects the spans anywhere under an agent span, stopping at the spans of nested runs (`isRun`;
 * the tool span that called them stays in this run). `adopted` are extra
 * subtrees whose parent is missing but which belong to this run. `unfold` gives the model calls
 * one model-call span holds, where the convention folds several onto one span. `pseudoTools`
 * (a framework's `final_answer` agent spans) are the run's tool calls.
 */
export function collectRunSpans(
  tree: SpanTree,
  agent: Span,
  isRun: (span: Span) => boolean,
  adopted: readonly Span[] = [],
  unfold?: (model: Span) => Span[] | undefined,
  pseudoTools?: ReadonlySet<Span>,
): RunSpans {
  let models: Span[] = []
  const tools: Span[] = []
  const failed: Span[] = []
  const stepSpans: Span[] = []
  // The nearest step span and the nearest model call at or above each span, set as the walk goes
  // down, so finding a span's step never walks back up (tool spans may nest thousands deep).
  const stepAbove = new Map<string, Span>()
  const modelAbove = new Map<string, Span>()
  const visited = new Set<string>([agent.spanId])
  const stack: Span[] = [...tree.children(agent.spanId), ...adopted]
  while (stack.length > 0) {
    const span = stack.pop()!
    if (visited.has(span.spanId)) continue
    visited.add(span.spanId)
    const role = pseudoTools?.has(span) ? 'tool' : spanRole(span)
    if (isRun(span)) {
      // A tool span that heads a run of its own (an agent run inline in a tool) is still this run's call.
      if (role === 'tool') tools.push(span)
      continue
    }
    const above = modelAbove.get(span.spanId)
    // A model call inside another instrumentation's span of the same call (OpenInference and
    // OpenLLMetry both on one client) is that call: the copy with more attributes stays.
    const twin = role === 'model' && above !== undefined && above.scope.name !== span.scope.name
    let model = role === 'model' ? span : above
    if (twin) {
      model = attributeCount(span) > attributeCount(above) ? span : above
      if (model === span) models[models.indexOf(above)] = span
    } else if (role === 'model') models.push(span)
    else if (role === 'tool') tools.push(span)
    else if (role === 'step') stepSpans.push(span)
    else if (span.status.code === StatusCode.ERROR) failed.push(span)
    const step = role === 'step' ? span : stepAbove.get(span.spanId)
    for (const child of tree.children(span.spanId)) {
      if (step) stepAbove.set(child.spanId, step)
      if (model) modelAbove.set(child.spanId, model)
      stack.push(child)
    }
  }
  if (unfold) models = models.flatMap((model) => unfold(model) ?? [model])
  models.sort(byStart)
  tools.sort(byStart)
  const hasStepSpans = stepSpans.length > 0
  const steps = (hasStepSpans ? stepSpans : models).sort(byStart)
  const index = new Map(steps.map((step, position) => [step.spanId, position]))
  return {
    models,
    tools,
    failed,
    steps,
    hasStepSpans,
    stepOf(span) {
      const own = index.get(span.spanId)
      if (own !== undefined) return own
      const above = (hasStepSpans ? stepAbove : modelAbove).get(span.spanId)
      return above ? index.get(above.spanId) : undefined
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

const attributeCount = (span: Span) => Object.keys(plainAttributes(span.attributes)).length
