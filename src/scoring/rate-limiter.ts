import type { JudgeCallKey, JudgeLimiter } from './judge-limiter.ts'

/** Per-model request and token rates. */
export interface RateLimits {
  requestsPerMinute?: number
  tokensPerMinute?: number
}

/** Clock and sleep, injected so rate limiting is tested without waiting. */
export interface Timekeeper {
  now: () => number
  sleep: (ms: number) => Promise<void>
}

const realTime: Timekeeper = { now: Date.now, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) }

/**
 * Wraps a limiter with per-model rates over a sliding minute: a call waits until fewer than
 * `requestsPerMinute` calls started in the last minute and the tokens reported in the last
 * minute are under `tokensPerMinute` (token usage is known only after a call, so this bounds
 * the rate of the next calls). `reportTokens` feeds usage back.
 */
export function createRateLimiter(
  inner: JudgeLimiter,
  rates: (key: JudgeCallKey) => RateLimits | undefined,
  time: Timekeeper = realTime,
): JudgeLimiter & { reportTokens(key: JudgeCallKey, tokens: number): void } {
  const starts = new Map<string, number[]>()
  const tokens = new Map<string, { at: number; n: number }[]>()
  const prune = <T>(list: T[], at: (t: T) => number, now: number) => {
    while (list.length > 0 && at(list[0]!) <= now - 60_000) list.shift()
  }
  return {
    async schedule(key, call, abortSignal) {
      const limits = rates(key)
      if (limits?.requestsPerMinute || limits?.tokensPerMinute) {
        const s = starts.get(key.model) ?? starts.set(key.model, []).get(key.model)!
        const t = tokens.get(key.model) ?? tokens.set(key.model, []).get(key.model)!
        for (;;) {
          const now = time.now()
          prune(s, (x) => x, now)
          prune(t, (x) => x.at, now)
          const used = t.reduce((sum, x) => sum + x.n, 0)
          const rpmFull = limits.requestsPerMinute !== undefined && s.length >= limits.requestsPerMinute
          const tpmFull = limits.tokensPerMinute !== undefined && used >= limits.tokensPerMinute
          if (!rpmFull && !tpmFull) break
          const oldest = Math.min(
            rpmFull ? s[0]! : Number.POSITIVE_INFINITY,
            tpmFull ? t[0]!.at : Number.POSITIVE_INFINITY,
          )
          abortSignal?.throwIfAborted()
          await time.sleep(Math.max(1, oldest + 60_000 - now))
        }
        s.push(time.now())
      }
      const result = await inner.schedule(key, call, abortSignal)
      // AI SDK results carry `usage`; count it without the caller having to report it.
      const usage = (
        result as { usage?: { totalTokens?: number; inputTokens?: number; outputTokens?: number } }
      )?.usage
      if (usage && typeof usage === 'object') {
        this.reportTokens(key, usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0))
      }
      return result
    },
    reportTokens(key, n) {
      if (!rates(key)?.tokensPerMinute || !(n > 0)) return
      const t = tokens.get(key.model) ?? tokens.set(key.model, []).get(key.model)!
      t.push({ at: time.now(), n })
    },
  }
}
