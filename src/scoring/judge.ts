import { AsyncLocalStorage } from 'node:async_hooks'
import { configDefaults } from '../config/defaults.ts'
import type { JudgeLimiter } from './judge-limiter.ts'
import {
  createEnvJudgeModelResolver,
  type JudgeModel,
  type JudgeModelResolver,
  type LanguageModelSource,
  toJudgeModelResolver,
} from './judge-model.ts'
import type { TokenBudget } from './token-budget.ts'

/**
 * What the surrounding program decides for every judge call of its scorers: how model ids
 * resolve, how calls are bounded, how long one may take, where `jsonPromptInjection: 'auto'` goes
 * native, and how many tokens each scorer may spend a day. One per pipeline (`judgeFromConfig`),
 * handed to what scores: `scoreRun`, `scorer.run(input, { judge })`, the prompt steps. Scorers are
 * defined before it exists; two pipelines in one process may each have their own.
 */
export interface Judge {
  readonly resolveModel: JudgeModelResolver
  /** Bounds every judge model call (per-model concurrency and rates); absent: unbounded. */
  readonly limiter?: JudgeLimiter
  /** Per-request timeout in milliseconds when the scorer's judge config sets none. */
  readonly timeoutMs: number
  /** Decides `'auto'`: true → native structured output, false → schema inlined in the prompt. */
  readonly supportsStructuredOutput: (model: JudgeModel) => boolean
  /** Daily judge-token budgets per scorer; absent: no budget. */
  readonly budget?: TokenBudget
}

/** Options of `createJudge`; whatever is left out takes its default. */
export interface JudgeOptions {
  /** A resolver function or an AI SDK provider registry; default: `createEnvJudgeModelResolver()`. */
  resolveModel?: JudgeModelResolver | LanguageModelSource
  limiter?: JudgeLimiter
  /** Default 60,000 (the configuration's `judges.timeoutMs` default). */
  timeoutMs?: number
  /** Default `defaultSupportsStructuredOutput`. */
  supportsStructuredOutput?: (model: JudgeModel) => boolean
  budget?: TokenBudget
}

/**
 * Providers whose AI SDK adapters send a JSON schema natively (`responseFormat`). OpenAI-compatible
 * endpoints (Ollama, vLLM, ...) and unknown providers get the schema inlined instead.
 */
const NATIVE_PROVIDERS = ['openai', 'azure', 'anthropic', 'google', 'vertex', 'mistral']

/** The default `'auto'` rule: native for OpenAI, Azure, Anthropic, Google, Vertex and Mistral models. */
export function defaultSupportsStructuredOutput(model: JudgeModel): boolean {
  const provider = model.provider.toLowerCase()
  return NATIVE_PROVIDERS.some((name) => provider === name || provider.startsWith(`${name}.`))
}

/** A judge; `judgeFromConfig` builds the one a configuration describes. */
export function createJudge(options: JudgeOptions = {}): Judge {
  return {
    resolveModel: options.resolveModel
      ? toJudgeModelResolver(options.resolveModel)
      : createEnvJudgeModelResolver(),
    timeoutMs: options.timeoutMs ?? configDefaults.judges.timeoutMs,
    supportsStructuredOutput: options.supportsStructuredOutput ?? defaultSupportsStructuredOutput,
    ...(options.limiter ? { limiter: options.limiter } : {}),
    ...(options.budget ? { budget: options.budget } : {}),
  }
}

// Scorers that call their model themselves (`judgeModel()` inside an `@mastra/evals` scorer) are
// not handed the judge: they find the one of the scoring they run in through the async context.
const scope = new AsyncLocalStorage<Judge>()
let fallback: Judge | undefined

/** Runs `work` with `judge` as the judge of every judge call made within it, `judgeModel()`'s included. */
export function withJudge<T>(judge: Judge, work: () => T): T {
  return scope.run(judge, work)
}

/** The judge of the scoring in progress (`withJudge`), else a default one: environment models, no limits. */
export function currentJudge(): Judge {
  const scoped = scope.getStore()
  if (scoped) return scoped
  fallback ??= createJudge()
  return fallback
}
