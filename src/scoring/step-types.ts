import type { StepJudgeConfig } from './judge-config.ts'
import type { NotScorable } from './not-scorable.ts'
import type { InferOutputSchema, OutputSchema } from './output-schema.ts'
import type { StepRun } from './scorer-run.ts'

type MaybePromise<T> = T | Promise<T>

/** What every step receives: the (prepared) run and the results of the steps before it. */
export interface StepContext<TResults extends Record<string, any>, TInput, TOutput> {
  run: StepRun<TInput, TOutput>
  results: TResults
}

/** The score computed by `generateScore`, as `generateReason` receives it. */
export type ScoreOf<TResults> = TResults extends Record<'generateScoreStepResult', infer S> ? S : never

/** `generateReason` also receives the score. */
export type GenerateReasonContext<TResults extends Record<string, any>, TInput, TOutput> = StepContext<
  TResults,
  TInput,
  TOutput
> & { score: ScoreOf<TResults> }

/** A function step: plain code, never calls the judge; may return `notScorable()`. */
export type FunctionStep<TContext, TResult> = (context: TContext) => MaybePromise<TResult>

/** A prompt-object `preprocess`/`analyze` step: the judge answers with `outputSchema`. */
export interface PromptObject<
  TSchema extends OutputSchema<any>,
  TResults extends Record<string, any>,
  TInput,
  TOutput,
> {
  description: string
  outputSchema: TSchema
  createPrompt: (context: StepContext<TResults, TInput, TOutput>) => MaybePromise<string>
  judge?: StepJudgeConfig
}

/**
 * What `calculateScore` receives: the step context plus the judge's parsed answer, both as
 * `analyzeStepResult` (the seed's name) and as `judgeOutput`. `results.analyzeStepResult` stays
 * the result of the `analyze` step.
 */
export type CalculateScoreContext<
  TResults extends Record<string, any>,
  TInput,
  TOutput,
  TJudge,
> = StepContext<TResults, TInput, TOutput> & { analyzeStepResult: TJudge; judgeOutput: TJudge }

/**
 * A prompt-object `generateScore` step. With `calculateScore` (seed) the judge answers with
 * `outputSchema` (default `{ score: number }`) and `calculateScore` makes the number; without it
 * (Mastra) the judge is asked for `{ score: number }` and that number is the score.
 */
export interface GenerateScorePromptObject<
  TResults extends Record<string, any>,
  TInput,
  TOutput,
  TSchema extends OutputSchema<any> = OutputSchema<any>,
> {
  description: string
  createPrompt: (context: StepContext<TResults, TInput, TOutput>) => MaybePromise<string>
  outputSchema?: TSchema
  calculateScore?: (
    context: CalculateScoreContext<TResults, TInput, TOutput, InferOutputSchema<TSchema>>,
  ) => MaybePromise<number>
  judge?: StepJudgeConfig
}

/** A prompt-object `generateReason` step: the judge answers in plain text, which becomes `reason`. */
export interface GenerateReasonPromptObject<TResults extends Record<string, any>, TInput, TOutput> {
  description: string
  createPrompt: (context: GenerateReasonContext<TResults, TInput, TOutput>) => MaybePromise<string>
  judge?: StepJudgeConfig
}

/** Adds one step's result to the accumulated results type. */
export type WithStepResult<TResults, TName extends string, TValue> = TResults &
  Record<`${TName}StepResult`, Exclude<Awaited<TValue>, NotScorable>>
