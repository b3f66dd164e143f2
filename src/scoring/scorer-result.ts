import type { NotScorableOutcome } from './not-scorable.ts'
import type { ScorerRun } from './scorer-run.ts'
import type { ScorerStepName } from './scorer-step-name.ts'

/** Tokens one judge step used, summed over its model calls. */
export interface JudgeTokenUsage {
  inputTokens?: number
  outputTokens?: number
  totalTokens?: number
  reasoningTokens?: number
  cachedInputTokens?: number
  cacheCreationInputTokens?: number
}

interface JudgeExecutionBase {
  /** The rendered prompt (the user message, before any schema was added). */
  prompt: string
  judgeModelId: string
  judgeProvider?: string
  /** Structured-output attempts: 2 when the answer was not valid JSON and the judge was asked again. */
  attemptCount: number
  /** Provider calls made, processor retries included. */
  modelCallCount: number
  durationMs: number
}

/** A prompt step's judge request that succeeded. */
export interface JudgeExecutionSuccess extends JudgeExecutionBase {
  status: 'success'
  /**
   * The parsed answer: the object for preprocess/analyze, the score for generateScore (with
   * `calculateScore`: the judge's object that calculateScore consumed), the text for generateReason.
   */
  output: unknown
  usage: JudgeTokenUsage
}

/** A prompt step's judge request that failed. */
export interface JudgeExecutionFailure extends JudgeExecutionBase {
  status: 'failed'
  output?: unknown
  rawOutput?: string
  usage?: JudgeTokenUsage
  finishReason?: string
  error: { name: string; message: string; code?: string }
}

/** One judge request of one prompt step. */
export type JudgeExecution = JudgeExecutionSuccess | JudgeExecutionFailure

/** The judge record of a run: per prompt step, its executions. */
export type JudgeResults = Partial<Record<ScorerStepName, { executions: JudgeExecution[] }>>

type Pick1<T, K extends string> = T extends Record<K, infer V> ? V : undefined

/** What `scorer.run()` resolves to (Mastra's `ScorerRunResult`). */
export type ScorerRunResult<
  TResults extends Record<string, any> = Record<string, any>,
  TInput = any,
  TOutput = any,
> = ScorerRun<TInput, TOutput> & {
  runId: string
  reason?: Pick1<TResults, 'generateReasonStepResult'>
  preprocessStepResult?: Pick1<TResults, 'preprocessStepResult'>
  analyzeStepResult?: Pick1<TResults, 'analyzeStepResult'>
  preprocessPrompt?: string
  analyzePrompt?: string
  generateScorePrompt?: string
  generateReasonPrompt?: string
  /** Present when at least one prompt step called the judge. */
  judge?: JudgeResults
} & (
    | {
        score: TResults extends Record<'generateScoreStepResult', infer S> ? S : never
        notScorable?: undefined
      }
    | { score?: undefined; notScorable: NotScorableOutcome }
  )
