/** Which model a judge call goes to, so a limiter can keep one queue per model. */
export interface JudgeCallKey {
  /** The judge's model id as configured (`'openai/gpt-5-mini'`), or `<provider>/<modelId>` for an instance. */
  model: string
  provider: string
  modelId: string
}

/** Marks a model that runs its calls through the judge limiter itself (`judgeModel()`). */
export const GOVERNED_JUDGE_MODEL: unique symbol = Symbol.for('tracescore.governedJudgeModel')

/** True for a model made by `judgeModel()`: callers must not schedule its calls a second time. */
export function isGovernedJudgeModel(model: object): boolean {
  return GOVERNED_JUDGE_MODEL in model
}

/**
 * The limiter key of a model: the configured `'provider/model'` id when the judge names one
 * (so `judges.models['openai/gpt-5-mini']` applies), else `<provider>/<modelId>` of the instance.
 */
export function judgeCallKey(
  model: { provider: string; modelId: string },
  configuredId?: string,
): JudgeCallKey {
  const provider = model.provider.split('.')[0] ?? model.provider
  return {
    model: configuredId ?? `${provider}/${model.modelId}`,
    provider: model.provider,
    modelId: model.modelId,
  }
}

/**
 * Bounds judge calls: every single model call (each retry included) runs through `schedule`.
 * The pipeline supplies one to enforce per-model concurrency and rate limits. The judge's calls
 * resolve to `{ text, usage, finishReason }`, so a limiter can count tokens.
 */
export interface JudgeLimiter {
  /** Runs `call` when the model has room; `abortSignal` (the run's) may cancel the wait. */
  schedule<T>(key: JudgeCallKey, call: () => Promise<T>, abortSignal?: AbortSignal): Promise<T>
}

/** Options of `createJudgeLimiter`. */
export interface JudgeLimiterOptions {
  /** Concurrent calls allowed per model when `perModel` does not name it. */
  maxConcurrency: number
  /** Per-model overrides, keyed by `provider/modelId` or by the bare model id. */
  perModel?: Record<string, number>
}

/**
 * A limiter that allows at most N concurrent calls per model, first come first served. A call
 * whose run is aborted while it waits leaves the queue and rejects with the abort reason.
 */
export function createJudgeLimiter(options: JudgeLimiterOptions): JudgeLimiter {
  const queues = new Map<string, { active: number; waiting: (() => void)[]; limit: number }>()
  const limitFor = (key: JudgeCallKey) =>
    options.perModel?.[key.model] ?? options.perModel?.[key.modelId] ?? options.maxConcurrency
  return {
    async schedule(key, call, abortSignal) {
      abortSignal?.throwIfAborted()
      let queue = queues.get(key.model)
      if (!queue) {
        queue = { active: 0, waiting: [], limit: Math.max(1, limitFor(key)) }
        queues.set(key.model, queue)
      }
      const q = queue
      if (q.active >= q.limit) await waitTurn(q.waiting, abortSignal)
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

/** Waits for a slot; the slot is handed over directly by the call that frees it. */
function waitTurn(waiting: (() => void)[], abortSignal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const turn = () => {
      abortSignal?.removeEventListener('abort', onAbort)
      resolve()
    }
    const onAbort = () => {
      const index = waiting.indexOf(turn)
      if (index >= 0) waiting.splice(index, 1)
      reject(abortSignal?.reason)
    }
    waiting.push(turn)
    abortSignal?.addEventListener('abort', onAbort, { once: true })
  })
}
