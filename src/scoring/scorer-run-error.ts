import type { ScorerRunResult } from './scorer-result.ts'
import type { ScorerStepName } from './scorer-step-name.ts'

/** A partial result: what the completed steps produced (no score when generateScore did not finish). */
export type ScorerRunResultSnapshot = Omit<ScorerRunResult, 'score'> & { score?: number }

/** Why `scorer.run()` rejected: the step that failed, the steps that completed, and what they produced. */
export class ScorerRunError extends Error {
  override readonly name = 'ScorerRunError'
  readonly id = 'MASTR_SCORER_FAILED_TO_RUN_WORKFLOW_FAILED'
  /** Mastra's error domain and category, for code that reads them. */
  readonly domain = 'SCORER'
  readonly category = 'USER'
  readonly scorerId: string
  readonly failedStep: ScorerStepName
  readonly completedSteps: ScorerStepName[]
  readonly result?: ScorerRunResultSnapshot
  readonly details: Record<string, string>

  constructor(options: {
    scorerId: string
    steps: ScorerStepName[]
    failedStep: ScorerStepName
    completedSteps: ScorerStepName[]
    result?: ScorerRunResultSnapshot
    cause: unknown
  }) {
    const causeMessage = options.cause instanceof Error ? options.cause.message : String(options.cause)
    super(`Scorer Run Failed: ${causeMessage}`, { cause: options.cause })
    this.scorerId = options.scorerId
    this.failedStep = options.failedStep
    this.completedSteps = options.completedSteps
    if (options.result) this.result = options.result
    this.details = {
      scorerId: options.scorerId,
      steps: options.steps.join(', '),
      failedStep: options.failedStep,
      completedSteps: options.completedSteps.join(', '),
    }
  }
}
