/**
 * The scoring stage: `createScorer` (Mastra-compatible), its judge, and the helpers scorers use.
 *
 * Every judge call goes through a `Judge` handed to what scores, never a process-wide setting:
 * `judgeFromConfig(config, { resolveModel })` builds the pipeline's (per-model limits, timeout,
 * daily token budgets; `resolveModel` resolves `'provider/model'` ids, by default from OPENAI_*,
 * ANTHROPIC_* and `<NAME>_BASE_URL`), `createJudge(options)` any other. `scorer.run(input,
 * { judge, abortSignal })` scores one run with it; `withJudge(judge, work)` gives it to
 * `judgeModel()` models of scorers run inside `work`. Judge usage, attempts and model calls per
 * prompt step are in `result.judge`.
 */
export { createScorer, Scorer, type ScorerConfig } from './create-scorer.ts'
export { fenceUntrusted, UNTRUSTED_CONTENT_INSTRUCTIONS, withTraceContentFencing } from './fence-untrusted.ts'
export * from './filter-run.ts'
export {
  type GovernedJudgeModel,
  type GovernedJudgeModelOptions,
  judgeModel,
} from './governed-judge-model.ts'
export {
  createJudge,
  defaultSupportsStructuredOutput,
  type Judge,
  type JudgeOptions,
  withJudge,
} from './judge.ts'
export {
  DEFAULT_MAX_PROCESSOR_RETRIES,
  type JsonPromptInjection,
  type JudgeConfig,
  type JudgeModelSettings,
  mergeJudgeConfig,
  type StepJudgeConfig,
} from './judge-config.ts'
export {
  type JudgeFromConfigOptions,
  judgeFromConfig,
  judgeLimiterFromConfig,
} from './judge-from-config.ts'
export {
  createJudgeLimiter,
  isGovernedJudgeModel,
  type JudgeCallKey,
  type JudgeLimiter,
  type JudgeLimiterOptions,
} from './judge-limiter.ts'
export {
  createEnvJudgeModelResolver,
  type JudgeModel,
  JudgeModelResolutionError,
  type JudgeModelResolver,
  type LanguageModelSource,
  type OpenAICompatibleModelConfig,
  resolveJudgeModel,
} from './judge-model.ts'
export {
  JudgeFormatError,
  JudgeRequestError,
  JudgeTimeoutError,
  ProcessorAbortError,
  parseJsonAnswer,
} from './judge-request.ts'
export { isNotScorable, type NotScorable, type NotScorableOutcome, notScorable } from './not-scorable.ts'
export type { InferOutputSchema, OutputSchema } from './output-schema.ts'
export type * from './processor.ts'
export * from './rate-limiter.ts'
export * from './redact.ts'
export type { ScorerRunOptions } from './run-scorer.ts'
export * from './sampling.ts'
export * from './score-run.ts'
export { ScorerConfigError } from './scorer-config-error.ts'
export type * from './scorer-result.ts'
export type { PrepareRun, ScorerRun, ScorerTypeShortcuts, StepRun } from './scorer-run.ts'
export { ScorerRunError, type ScorerRunResultSnapshot } from './scorer-run-error.ts'
export type { ScorerStepName } from './scorer-step-name.ts'
export type * from './step-types.ts'
export * from './stream-error-retry-processor.ts'
export * from './token-budget.ts'
