import { describe, expect, it } from 'vitest'
import { resolveRetryPolicy, retryDelayMs } from './retry-policy.ts'
import { createRetryingDelivery, isRetryableError, SinkDeliveryError } from './retrying-delivery.ts'

describe('retry policy', () => {
  it('grows delays by the multiplier up to the cap, with jitter inside ±jitter', () => {
    const policy = resolveRetryPolicy({ initialDelayMs: 100, multiplier: 3, maxDelayMs: 1000, jitter: 0 })
    expect([1, 2, 3, 4].map((n) => retryDelayMs(policy, n))).toEqual([100, 300, 900, 1000])
    const jittered = resolveRetryPolicy({ initialDelayMs: 100, jitter: 0.2 })
    expect(retryDelayMs(jittered, 1, () => 0)).toBe(80)
    expect(retryDelayMs(jittered, 1, () => 0.999999)).toBe(120)
  })

  it('rejects invalid values naming the key', () => {
    expect(() => resolveRetryPolicy({ retries: -1 })).toThrow(/retry\.retries/)
    expect(() => resolveRetryPolicy({ retries: 1.5 })).toThrow(/retry\.retries/)
    expect(() => resolveRetryPolicy({ maxDelayMs: Number.NaN })).toThrow(/retry\.maxDelayMs/)
  })
})

describe('createRetryingDelivery', () => {
  it('retries until success and counts records once', async () => {
    const waits: number[] = []
    const events: unknown[] = []
    const delivery = createRetryingDelivery({
      sink: 'test',
      retry: { retries: 5, initialDelayMs: 10, jitter: 0 },
      sleep: async (ms) => {
        waits.push(ms)
      },
      onRetry: ({ sink, attempt, delayMs, error }) =>
        events.push([sink, attempt, delayMs, (error as Error).message]),
    })
    let calls = 0
    await delivery.run(3, async () => {
      if (++calls < 3) throw new Error('flaky')
    })
    expect(calls).toBe(3)
    expect(waits).toEqual([10, 20])
    expect(events).toEqual([
      ['test', 1, 10, 'flaky'],
      ['test', 2, 20, 'flaky'],
    ])
    expect(delivery.stats()).toEqual({ delivered: 3, failed: 0, retries: 2, skipped: 0 })
  })

  it('gives up after the budget with the last error as cause', async () => {
    const delivery = createRetryingDelivery({ sink: 'test', retry: { retries: 1 }, sleep: async () => {} })
    const last = new Error('still down')
    const error = await delivery
      .run(2, async () => {
        throw last
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SinkDeliveryError)
    expect(error).toMatchObject({ sink: 'test', attempts: 2, records: 2, cause: last })
    expect(delivery.stats()).toEqual({ delivered: 0, failed: 2, retries: 1, skipped: 0 })
  })

  it('classifies 4xx other than 408/429 and retryable:false as permanent', () => {
    expect(isRetryableError(Object.assign(new Error('bad'), { status: 400 }))).toBe(false)
    expect(isRetryableError(Object.assign(new Error('auth'), { code: 401 }))).toBe(false)
    expect(isRetryableError(Object.assign(new Error('slow'), { status: 429 }))).toBe(true)
    expect(isRetryableError(Object.assign(new Error('timeout'), { status: 408 }))).toBe(true)
    expect(isRetryableError(Object.assign(new Error('down'), { status: 503 }))).toBe(true)
    expect(isRetryableError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBe(true)
    expect(isRetryableError(Object.assign(new Error('schema'), { retryable: false }))).toBe(false)
  })

  it('stops retrying when stopped: a waiting retry gives up at once', async () => {
    const delivery = createRetryingDelivery({
      sink: 'test',
      retry: { retries: 100 },
      sleep: () => new Promise(() => {}), // a retry that would wait forever
    })
    let calls = 0
    const running = delivery.run(1, async () => {
      calls++
      throw new Error('down')
    })
    await new Promise((r) => setImmediate(r))
    delivery.stop()
    const error = await running.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SinkDeliveryError)
    expect((error as Error).message).toMatch(/sink closed while retrying/)
    expect(calls).toBe(1)
    expect(delivery.stats()).toMatchObject({ delivered: 0, failed: 1, retries: 1 })
    // After stop, a failure is not retried at all.
    await expect(
      delivery.run(1, async () => {
        throw new Error('still down')
      }),
    ).rejects.toMatchObject({ attempts: 1 })
  })
})
