import type { ScorerStepName } from './scorer-step-name.ts'

/** Brand shared with `@mastra/core`, so a sentinel made by either library is recognised by both. */
const NOT_SCORABLE: unique symbol = Symbol.for('mastra.evals.notScorable')

/** What a step returns to say the run has nothing to score. Create it with `notScorable()`. */
export interface NotScorable {
  readonly [NOT_SCORABLE]: true
  readonly reason?: string
}

/** How a not-scorable run appears on the result: the step that said so and why. */
export interface NotScorableOutcome {
  step: ScorerStepName
  reason?: string
}

/** Ends the scorer pipeline without a score and without further judge calls. */
export function notScorable(reason?: string): NotScorable {
  return { [NOT_SCORABLE]: true, ...(reason !== undefined ? { reason } : {}) } as NotScorable
}

/** Whether a step returned `notScorable()`. */
export function isNotScorable(value: unknown): value is NotScorable {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<PropertyKey, unknown>)[NOT_SCORABLE] === true
  )
}
