import type { TracescoreConfig } from '../config/index.ts'
import { createJudge, type Judge } from './judge.ts'
import { createJudgeLimiter, type JudgeCallKey, type JudgeLimiter } from './judge-limiter.ts'
import {
  createEnvJudgeModelResolver,
  type JudgeModelResolver,
  type LanguageModelSource,
} from './judge-model.ts'
import { createRateLimiter, type Timekeeper } from './rate-limiter.ts'
import { TokenBudget } from './token-budget.ts'

/** What `judgeFromConfig` may be given besides the configuration. */
export interface JudgeFromConfigOptions {
  /** Resolves `'provider/model'` ids; default: the providers `judges.providerEnv` describes. */
  resolveModel?: JudgeModelResolver | LanguageModelSource
  /** The budgets' clock (epoch milliseconds), default `Date.now`. */
  now?: () => number
  /** The rate limiter's clock and sleep. */
  time?: Timekeeper
}

/**
 * The judge a configuration describes: `judges` (per-model concurrency and rates, timeout) and the
 * scorers' `dailyTokenBudget`s. Built once per pipeline (or `tracescore score` run).
 */
export function judgeFromConfig(config: TracescoreConfig, options: JudgeFromConfigOptions = {}): Judge {
  return createJudge({
    limiter: judgeLimiterFromConfig(config, options.time),
    timeoutMs: config.judges.timeoutMs,
    budget: tokenBudgetFromConfig(config, options.now),
    resolveModel: options.resolveModel ?? createEnvJudgeModelResolver(config.judges.providerEnv),
  })
}

/** The judge limiter the configuration asks for (per-model concurrency and rates). */
export function judgeLimiterFromConfig(config: TracescoreConfig, time?: Timekeeper): JudgeLimiter {
  const { models, defaultLimits } = config.judges
  const limitsFor = (key: JudgeCallKey) => models[key.model] ?? models[key.modelId] ?? defaultLimits
  const perModel = Object.fromEntries(Object.entries(models).map(([id, l]) => [id, l.concurrency]))
  const concurrency = createJudgeLimiter({ maxConcurrency: defaultLimits.concurrency, perModel })
  return createRateLimiter(concurrency, limitsFor, time)
}

/** The daily token budgets of the scorers that set `dailyTokenBudget`. */
export function tokenBudgetFromConfig(config: TracescoreConfig, now?: () => number): TokenBudget {
  const limits = Object.fromEntries(
    Object.entries(config.scorers).flatMap(([name, entry]) =>
      entry.dailyTokenBudget ? [[name, entry.dailyTokenBudget]] : [],
    ),
  )
  return new TokenBudget(limits, now)
}
