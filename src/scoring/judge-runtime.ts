import type { JudgeLimiter } from './judge-limiter.ts'
import {
  createEnvJudgeModelResolver,
  type JudgeModel,
  type JudgeModelResolver,
  type LanguageModelSource,
  toJudgeModelResolver,
} from './judge-model.ts'

/**
 * What the surrounding program decides for every judge call: how model ids resolve, how calls
 * are bounded, how long one may take, and where `jsonPromptInjection: 'auto'` goes native.
 */
export interface JudgeRuntime {
  resolveModel: JudgeModelResolver
  limiter?: JudgeLimiter
  /** Per-request timeout in milliseconds when the judge config sets none. */
  timeoutMs: number
  /** Decides `'auto'`: true → native structured output, false → schema inlined in the prompt. */
  supportsStructuredOutput: (model: JudgeModel) => boolean
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

const DEFAULT_TIMEOUT_MS = 120_000

let current: JudgeRuntime = {
  resolveModel: createEnvJudgeModelResolver(),
  timeoutMs: DEFAULT_TIMEOUT_MS,
  supportsStructuredOutput: defaultSupportsStructuredOutput,
}

/** The process-wide judge runtime. */
export function getJudgeRuntime(): JudgeRuntime {
  return current
}

/** Replaces parts of the process-wide judge runtime; returns the previous one (to restore it). */
export function configureJudge(changes: Partial<JudgeRuntime>): JudgeRuntime {
  const previous = current
  current = { ...current, ...changes }
  return previous
}

/**
 * Lets the pipeline resolve `'provider/model'` ids itself: a resolver function or an AI SDK
 * provider registry. `undefined` restores the environment-based default.
 */
export function setJudgeModelResolver(source: JudgeModelResolver | LanguageModelSource | undefined): void {
  current = {
    ...current,
    resolveModel: source ? toJudgeModelResolver(source) : createEnvJudgeModelResolver(),
  }
}

/** Lets the pipeline bound judge calls (per-model concurrency, rate); `undefined` removes the bound. */
export function setJudgeLimiter(limiter: JudgeLimiter | undefined): void {
  current = { ...current, limiter }
}
