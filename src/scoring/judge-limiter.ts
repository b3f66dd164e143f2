/** Which model a judge call goes to, so a limiter can keep one queue per model. */
export interface JudgeCallKey {
  /** The judge's model id as configured (`'openai/gpt-5-mini'`), or `<provider>/<modelId>` for an instance. */
  model: string
  provider: string
  modelId: string
}

/**
 * Bounds judge calls: every single model call (each retry included) runs through `schedule`.
 * The pipeline supplies one to enforce per-model concurrency and rate limits. The judge's calls
 * resolve to `{ text, usage, finishReason }`, so a limiter can count tokens.
 */
export interface JudgeLimiter {
  schedule<T>(key: JudgeCallKey, call: () => Promise<T>): Promise<T>
}

/** Options of `createJudgeLimiter`. */
export interface JudgeLimiterOptions {
  /** Concurrent calls allowed per model when `perModel` does not name it. */
  maxConcurrency: number
  /** Per-model overrides, keyed by `provider/modelId` or by the bare model id. */
  perModel?: Record<string, number>
}

/** A limiter that allows at most N concurrent calls per model, first come first served. */
export function createJudgeLimiter(options: JudgeLimiterOptions): JudgeLimiter {
  const queues = new Map<string, { active: number; waiting: (() => void)[]; limit: number }>()
  const limitFor = (key: JudgeCallKey) =>
    options.perModel?.[key.model] ?? options.perModel?.[key.modelId] ?? options.maxConcurrency
  return {
    async schedule(key, call) {
      let queue = queues.get(key.model)
      if (!queue) {
        queue = { active: 0, waiting: [], limit: Math.max(1, limitFor(key)) }
        queues.set(key.model, queue)
      }
      const q = queue
      if (q.active >= q.limit) await new Promise<void>((resolve) => q.waiting.push(resolve))
      else q.active++
      try {
        return await call()
      } finally {
        const next = q.waiting.shift()
        if (next) next()
        else q.active--
      }
    },
  }
}
