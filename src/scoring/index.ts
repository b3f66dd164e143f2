/**
 * The scoring stage: `createScorer` (Mastra-compatible), its judge, and the helpers scorers use.
 *
 * The pipeline shapes every judge call through the process-wide judge runtime:
 * `setJudgeModelResolver(fnOrRegistry)` resolves `'provider/model'` ids (default: OPENAI_*,
 * ANTHROPIC_*, and `<NAME>_BASE_URL` OpenAI-compatible endpoints), `setJudgeLimiter(limiter)`
 * bounds each model call (`createJudgeLimiter` or the config's governance limiter), and
 * `configureJudge({ timeoutMs, supportsStructuredOutput })` sets the per-call timeout and the
 * `jsonPromptInjection: 'auto'` rule. `scorer.run(input, { judge, abortSignal })` overrides them
 * for one run. Judge usage, attempts and model calls per prompt step are in `result.judge`.
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
  DEFAULT_MAX_PROCESSOR_RETRIES,
  type JsonPromptInjection,
  type JudgeConfig,
  type JudgeModelSettings,
  mergeJudgeConfig,
  type StepJudgeConfig,
} from './judge-config.ts'
export * from './judge-governance.ts'
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
export {
  configureJudge,
  defaultSupportsStructuredOutput,
  getJudgeRuntime,
  type JudgeRuntime,
  setJudgeLimiter,
  setJudgeModelResolver,
} from './judge-runtime.ts'
export { isNotScorable, type NotScorable, type NotScorableOutcome, notScorable } from './not-scorable.ts'
export type { InferOutputSchema, OutputSchema } from './output-schema.ts'
export type * from './processor.ts'
export * from './redact.ts'
export * from './registry.ts'
export type { ScorerRunOptions } from './run-scorer.ts'
export * from './sampling.ts'
export { ScorerConfigError } from './scorer-config-error.ts'
export type * from './scorer-result.ts'
export type { PrepareRun, ScorerRun, ScorerTypeShortcuts, StepRun } from './scorer-run.ts'
export { ScorerRunError, type ScorerRunResultSnapshot } from './scorer-run-error.ts'
export type { ScorerStepName } from './scorer-step-name.ts'
export type * from './step-types.ts'
export * from './stream-error-retry-processor.ts'
export * from './token-budget.ts'
