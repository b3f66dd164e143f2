import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../config/define-config.ts'
import { judgeLimiterFromConfig } from './judge-from-config.ts'
import { createJudgeLimiter } from './judge-limiter.ts'
import { createRateLimiter } from './rate-limiter.ts'
import { fakeTime } from './testing/fake-time.ts'

const key = { model: 'openai/gpt-5-mini', provider: 'openai', modelId: 'gpt-5-mini' }

/** A rate limiter on fake time with `limits` for every model (concurrency 10). */
function rateLimited(limits: ReturnType<Parameters<typeof createRateLimiter>[1]>) {
  const time = fakeTime()
  return { time, limiter: createRateLimiter(createJudgeLimiter({ maxConcurrency: 10 }), () => limits, time) }
}

describe('judge rate and concurrency limits', () => {
  it('holds requests beyond requestsPerMinute until the minute has passed', async () => {
    const { time, limiter } = rateLimited({ requestsPerMinute: 2 })
    const startedAt: number[] = []
    for (let i = 0; i < 5; i++) await limiter.schedule(key, async () => startedAt.push(time.now()))
    expect(startedAt).toEqual([0, 0, 60_000, 60_000, 120_000])
  })

  it('holds requests while the tokens of the last minute exceed tokensPerMinute', async () => {
    const { time, limiter } = rateLimited({ tokensPerMinute: 1000 })
    await limiter.schedule(key, async () => ({ text: 'ok', usage: { inputTokens: 1000, outputTokens: 200 } }))
    const started: number[] = []
    await limiter.schedule(key, async () => started.push(time.now()))
    expect(started).toEqual([60_000])
  })

  it('never runs more than the configured concurrency per model at once', async () => {
    const config = resolveConfig({ judges: { models: { 'openai/gpt-5-mini': { concurrency: 2 } } } }, {})
    const limiter = judgeLimiterFromConfig(config)
    let active = 0
    let peak = 0
    const call = async () => {
      active++
      peak = Math.max(peak, active)
      await new Promise((r) => setTimeout(r, 5))
      active--
    }
    await Promise.all(Array.from({ length: 8 }, () => limiter.schedule(key, call)))
    expect(peak).toBe(2)
  })
})
