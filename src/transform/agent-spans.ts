import type { Span } from '../model/index.ts'
import { spanRole } from './detect-convention.ts'
import { byStart } from './span-tree.ts'

/** Whether a span is the span of one agent run (a turn of one agent), in any known convention. */
export function isAgentRunSpan(span: Span): boolean {
  return spanRole(span) === 'agent'
}

/** The agent-run spans among `spans`, earliest start first. */
export function findAgentSpans(spans: readonly Span[]): Span[] {
  return spans.filter(isAgentRunSpan).sort(byStart)
}
