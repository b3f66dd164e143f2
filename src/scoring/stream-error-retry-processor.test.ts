import { APICallError } from '@ai-sdk/provider'
import { StreamErrorRetryProcessor as MastraStreamErrorRetryProcessor } from '@mastra/core/processors'
import { MockLanguageModelV3 } from 'ai/test'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createScorer } from './create-scorer.ts'
import type { ProcessAPIErrorArgs, Processor } from './processor.ts'
import {
  isBadRequestError,
  isRetryableOpenAIResponsesStreamError,
  StreamErrorRetryProcessor,
  type StreamErrorRetryProcessorOptions,
} from './stream-error-retry-processor.ts'

function apiError(statusCode: number, extra: Partial<ConstructorParameters<typeof APICallError>[0]> = {}) {
  return new APICallError({
    message: `HTTP ${statusCode}`,
    url: 'https://api.example.test/v1/responses',
    requestBodyValues: {},
    statusCode,
    ...extra,
  })
}

/** A 429 answer with these response headers. */
function tooManyRequests(responseHeaders: Record<string, string>) {
  return apiError(429, { responseHeaders })
}

function args(error: unknown, retryCount = 0, abortSignal?: AbortSignal): ProcessAPIErrorArgs {
  return {
    error,
    messages: [{ role: 'user', content: 'judge this' }],
    retryCount,
    abort: () => {
      throw new Error('aborted')
    },
    ...(abortSignal ? { abortSignal } : {}),
  }
}

/** A processor whose waits are recorded instead of slept. */
function recorded(options: StreamErrorRetryProcessorOptions = {}) {
  const sleeps: { ms: number; abortSignal: AbortSignal | undefined }[] = []
  const processor = new StreamErrorRetryProcessor({
    ...options,
    sleep: async (ms, abortSignal) => {
      sleeps.push({ ms, abortSignal })
    },
  })
  return { processor, sleeps }
}

const transientNetwork = (error: unknown) =>
  error instanceof Error && /ECONNRESET|socket hang up/i.test(error.message)
const wrap = (cause: unknown) => new Error('stream failed', { cause })
const circular = () => {
  const a: Record<string, unknown> = { message: 'a' }
  const b: Record<string, unknown> = { message: 'b', cause: a }
  a.cause = b
  return a
}

type Row = [
  name: string,
  options: StreamErrorRetryProcessorOptions,
  error: unknown,
  retryCount: number,
  retry: boolean,
]

const decisions: Row[] = [
  // nothing matched
  ['plain error, defaults', {}, new Error('boom'), 0, false],
  ['string error, defaults', {}, 'boom', 0, false],
  ['undefined error, defaults', {}, undefined, 0, false],
  // provider metadata
  ['APICallError 429 (isRetryable)', {}, apiError(429), 0, true],
  ['APICallError 503 (isRetryable)', {}, apiError(503), 0, true],
  ['APICallError 408 (isRetryable)', {}, apiError(408), 0, true],
  ['APICallError with isRetryable overridden false', {}, apiError(503, { isRetryable: false }), 0, false],
  ['plain object isRetryable true', {}, { message: 'x', isRetryable: true }, 0, true],
  ['plain object isRetryable "true" (not a boolean)', {}, { isRetryable: 'true' }, 0, false],
  ['isRetryable deep in the cause chain', {}, wrap(wrap(apiError(500))), 0, true],
  // retry budget
  ['retryable at retryCount 1, default maxRetries 1', {}, apiError(429), 1, false],
  ['retryable at retryCount 2, maxRetries 3', { maxRetries: 3 }, apiError(429), 2, true],
  ['retryable at retryCount 3, maxRetries 3', { maxRetries: 3 }, apiError(429), 3, false],
  ['maxRetries 0 never retries', { maxRetries: 0 }, apiError(429), 0, false],
  // bad request and context length
  ['400 is not retried', {}, apiError(400), 0, false],
  [
    'context length exceeded is not retried',
    {},
    apiError(400, { responseBody: '{"error":{"code":"context_length_exceeded","message":"too long"}}' }),
    0,
    false,
  ],
  [
    '400 is retried with the isBadRequestError matcher',
    { matchers: [isBadRequestError] },
    apiError(400),
    0,
    true,
  ],
  [
    'context length is retried when a matcher says so',
    { matchers: [(e) => e instanceof Error && /too long/.test(String((e as APICallError).responseBody))] },
    apiError(400, { responseBody: 'prompt too long' }),
    0,
    true,
  ],
  // custom matchers
  ['predicate matcher', { matchers: [transientNetwork] }, new Error('read ECONNRESET'), 0, true],
  [
    'predicate matcher on a cause',
    { matchers: [transientNetwork] },
    wrap(new Error('socket hang up')),
    0,
    true,
  ],
  ['predicate matcher not matching', { matchers: [transientNetwork] }, new Error('EACCES'), 0, false],
  [
    'config matcher maxRetries raises the budget',
    { matchers: [{ match: transientNetwork, maxRetries: 3 }] },
    new Error('ECONNRESET'),
    2,
    true,
  ],
  [
    'config matcher maxRetries lowers the budget',
    { maxRetries: 5, matchers: [{ match: transientNetwork, maxRetries: 1 }] },
    new Error('ECONNRESET'),
    1,
    false,
  ],
  [
    'config matcher without maxRetries uses the processor budget',
    { maxRetries: 2, matchers: [{ match: transientNetwork }] },
    new Error('ECONNRESET'),
    1,
    true,
  ],
  [
    'first matching matcher wins',
    {
      matchers: [
        { match: transientNetwork, maxRetries: 0 },
        { match: () => true, maxRetries: 9 },
      ],
    },
    new Error('ECONNRESET'),
    0,
    false,
  ],
  [
    'a matcher takes precedence over isRetryable metadata on the same error',
    { matchers: [{ match: (e) => APICallError.isInstance(e), maxRetries: 0 }] },
    apiError(429),
    0,
    false,
  ],
  [
    'an outer error matched by a matcher wins over a retryable cause',
    {
      maxRetries: 5,
      matchers: [{ match: (e) => e instanceof Error && e.message === 'stream failed', maxRetries: 1 }],
    },
    wrap(apiError(429)),
    2,
    false,
  ],
  ['a circular cause chain ends the search', {}, circular(), 0, false],
  // retryUnknownErrors
  ['unknown error with retryUnknownErrors', { retryUnknownErrors: true }, new Error('boom'), 0, true],
  ['string error with retryUnknownErrors', { retryUnknownErrors: true }, 'boom', 0, true],
  [
    'unknown error with retryUnknownErrors at the budget',
    { retryUnknownErrors: true },
    new Error('boom'),
    1,
    false,
  ],
  [
    '400 with retryUnknownErrors (not an auth failure, so retried)',
    { retryUnknownErrors: true },
    apiError(400),
    0,
    true,
  ],
  ['401 with retryUnknownErrors', { retryUnknownErrors: true }, apiError(401), 0, false],
  ['403 with retryUnknownErrors', { retryUnknownErrors: true }, apiError(403), 0, false],
  ['status 401 field with retryUnknownErrors', { retryUnknownErrors: true }, { status: 401 }, 0, false],
  [
    'code invalid_api_key with retryUnknownErrors',
    { retryUnknownErrors: true },
    { code: 'invalid_api_key' },
    0,
    false,
  ],
  [
    'type " Authentication_Error " with retryUnknownErrors',
    { retryUnknownErrors: true },
    { type: ' Authentication_Error ' },
    0,
    false,
  ],
  [
    'auth code in error.error',
    { retryUnknownErrors: true },
    { error: { code: 'permission_denied' } },
    0,
    false,
  ],
  [
    'auth code in data',
    { retryUnknownErrors: true },
    apiError(400, { data: { error: { type: 'forbidden' } } }),
    0,
    false,
  ],
  [
    'auth code in the JSON response body',
    { retryUnknownErrors: true },
    apiError(400, { responseBody: '{"error":{"code":"access_denied"}}' }),
    0,
    false,
  ],
  ['403 in the cause chain', { retryUnknownErrors: true }, wrap({ statusCode: 403 }), 0, false],
  [
    'non-JSON response body is ignored',
    { retryUnknownErrors: true },
    apiError(400, { responseBody: 'forbidden' }),
    0,
    true,
  ],
  ['a matched auth error is still retried', { matchers: [() => true] }, apiError(401), 0, true],
  // OpenAI Responses stream errors (built in)
  [
    'OpenAI error event rate_limit_exceeded',
    {},
    { type: 'error', error: { code: 'rate_limit_exceeded' } },
    0,
    true,
  ],
  ['OpenAI error event type server_error', {}, { type: 'error', error: { type: 'server_error' } }, 0, true],
  [
    'OpenAI error event code Overloaded_Error',
    {},
    { type: 'error', error: { code: 'Overloaded_Error' } },
    0,
    true,
  ],
  [
    'OpenAI response.failed timeout',
    {},
    { type: 'response.failed', response: { error: { code: 'timeout' } } },
    0,
    true,
  ],
  [
    'OpenAI error with "you can retry your request"',
    {},
    { type: 'error', error: { code: 'odd', message: 'Something broke. You can retry your request.' } },
    0,
    true,
  ],
  [
    'OpenAI error event invalid_prompt',
    {},
    { type: 'error', error: { code: 'invalid_prompt', message: 'bad' } },
    0,
    false,
  ],
  [
    'OpenAI context_length_exceeded',
    {},
    { type: 'error', error: { code: 'context_length_exceeded' } },
    0,
    false,
  ],
  ['OpenAI stream error as a cause', {}, wrap({ type: 'error', error: { code: 'server_error' } }), 0, true],
  ['OpenAI stream error at the budget', {}, { type: 'error', error: { code: 'server_error' } }, 1, false],
]

describe('StreamErrorRetryProcessor decisions', () => {
  it.each(decisions)('%s', async (_name, options, error, retryCount, retry) => {
    const { processor } = recorded(options)
    expect(await processor.processAPIError(args(error, retryCount))).toEqual({ retry })
  })
})

type DelayRow = [name: string, options: StreamErrorRetryProcessorOptions, error: unknown, expectedMs: number]

const now = Date.parse('2026-11-30T10:00:00Z')
const delays: DelayRow[] = [
  ['no delay configured', {}, apiError(429), 0],
  ['fixed delayMs', { delayMs: 250 }, apiError(429), 250],
  ['negative delayMs counts as 0', { delayMs: -5 }, apiError(429), 0],
  ['NaN delayMs counts as 0', { delayMs: Number.NaN }, apiError(429), 0],
  ['infinite delayMs counts as 0', { delayMs: Number.POSITIVE_INFINITY }, apiError(429), 0],
  ['delayMs function', { delayMs: () => 1_234 }, apiError(429), 1_234],
  ['async delayMs function', { delayMs: async () => 77 }, apiError(429), 77],
  ['retry-after-ms header', {}, tooManyRequests({ 'retry-after-ms': '1500' }), 1_500],
  ['Retry-After seconds, any header case', {}, tooManyRequests({ 'Retry-After': '2' }), 2_000],
  [
    'retry-after-ms wins over retry-after',
    {},
    tooManyRequests({ 'retry-after-ms': '10', 'retry-after': '9' }),
    10,
  ],
  [
    'unusable retry-after-ms falls back to retry-after',
    {},
    tooManyRequests({ 'retry-after-ms': '1.5', 'retry-after': '3' }),
    3_000,
  ],
  ['decimal Retry-After is ignored', {}, tooManyRequests({ 'retry-after': '1.5' }), 0],
  ['Retry-After HTTP date', {}, tooManyRequests({ 'retry-after': 'Mon, 30 Nov 2026 10:00:05 GMT' }), 5_000],
  [
    'Retry-After date in the past',
    {},
    tooManyRequests({ 'retry-after': 'Mon, 30 Nov 2026 09:00:00 GMT' }),
    0,
  ],
  ['Retry-After garbage', {}, tooManyRequests({ 'retry-after': 'soon' }), 0],
  ['Retry-After capped at 30 s by default', {}, tooManyRequests({ 'retry-after': '120' }), 30_000],
  [
    'maxRetryAfterMs raises the cap',
    { maxRetryAfterMs: 60_000 },
    tooManyRequests({ 'retry-after': '120' }),
    60_000,
  ],
  [
    'negative maxRetryAfterMs ignores Retry-After',
    { maxRetryAfterMs: -1 },
    tooManyRequests({ 'retry-after': '120' }),
    0,
  ],
  ['delay is the larger: delayMs', { delayMs: 10_000 }, tooManyRequests({ 'retry-after': '2' }), 10_000],
  ['delay is the larger: Retry-After', { delayMs: 1_000 }, tooManyRequests({ 'retry-after': '5' }), 5_000],
  ['the cap does not cap delayMs', { delayMs: 50_000 }, tooManyRequests({ 'retry-after': '120' }), 50_000],
  [
    'Retry-After read from a cause',
    {},
    wrap(apiError(503, { responseHeaders: { 'retry-after': '4' } })),
    4_000,
  ],
  [
    'a matcher delay replaces the processor delay',
    { delayMs: 5_000, matchers: [{ match: transientNetwork, delayMs: 100 }] },
    new Error('ECONNRESET'),
    100,
  ],
  [
    'a matcher without delay uses the processor delay',
    { delayMs: 5_000, matchers: [{ match: transientNetwork }] },
    new Error('ECONNRESET'),
    5_000,
  ],
  [
    'retryUnknownErrors uses the processor delay',
    { retryUnknownErrors: true, delayMs: 42 },
    new Error('x'),
    42,
  ],
]

describe('StreamErrorRetryProcessor delays', () => {
  it.each(delays)('%s', async (_name, options, error, expectedMs) => {
    const { processor, sleeps } = recorded({ ...options, now: () => now })
    expect(await processor.processAPIError(args(error))).toEqual({ retry: true })
    expect(sleeps.map((s) => s.ms)).toEqual(expectedMs > 0 ? [expectedMs] : [])
  })

  it('passes the request to the delay function (exponential backoff from retryCount)', async () => {
    const seen: ProcessAPIErrorArgs[] = []
    const { processor, sleeps } = recorded({
      maxRetries: 3,
      delayMs: (a) => {
        seen.push(a)
        return 1_000 * 2 ** a.retryCount
      },
    })
    for (const retryCount of [0, 1, 2]) await processor.processAPIError(args(apiError(429), retryCount))
    expect(sleeps.map((s) => s.ms)).toEqual([1_000, 2_000, 4_000])
    expect(seen[0]?.messages).toEqual([{ role: 'user', content: 'judge this' }])
  })

  it('does not evaluate the delay or wait when it does not retry', async () => {
    const delayMs = vi.fn(() => 100)
    const { processor, sleeps } = recorded({ delayMs })
    expect(await processor.processAPIError(args(apiError(429), 1))).toEqual({ retry: false })
    expect(await processor.processAPIError(args(apiError(400)))).toEqual({ retry: false })
    expect(delayMs).not.toHaveBeenCalled()
    expect(sleeps).toEqual([])
  })

  it('calls the matcher onRetry with the request and the delay, before waiting', async () => {
    const order: string[] = []
    const onRetry = vi.fn(() => {
      order.push('onRetry')
    })
    const processor = new StreamErrorRetryProcessor({
      matchers: [{ match: transientNetwork, onRetry, delayMs: 300 }],
      sleep: async () => {
        order.push('sleep')
      },
    })
    const request = args(new Error('ECONNRESET'))
    await processor.processAPIError(request)
    expect(onRetry).toHaveBeenCalledWith({ ...request, delayMs: 300 })
    expect(order).toEqual(['onRetry', 'sleep'])
    expect(await processor.processAPIError(args(new Error('ECONNRESET'), 1))).toEqual({ retry: false })
    expect(onRetry).toHaveBeenCalledTimes(1)
  })

  it('hands the abort signal to the sleep', async () => {
    const { processor, sleeps } = recorded({ delayMs: 10 })
    const controller = new AbortController()
    await processor.processAPIError(args(apiError(429), 0, controller.signal))
    expect(sleeps[0]?.abortSignal).toBe(controller.signal)
  })
})

describe('StreamErrorRetryProcessor as configured in the createScorer spec example', () => {
  const isTransientNetworkError = (error: unknown) =>
    error instanceof Error && /ECONNRESET|ETIMEDOUT|socket hang up/i.test(error.message)

  it('retries transient network errors twice with exponential backoff and nothing else', async () => {
    const { processor, sleeps } = recorded({
      maxRetries: 2,
      maxRetryAfterMs: 30_000,
      delayMs: ({ retryCount }) => Math.min(1_000 * 2 ** retryCount, 30_000),
      matchers: [isTransientNetworkError],
      retryUnknownErrors: false,
    })
    const reset = new Error('read ECONNRESET')
    expect(await processor.processAPIError(args(reset, 0))).toEqual({ retry: true })
    expect(await processor.processAPIError(args(reset, 1))).toEqual({ retry: true })
    expect(await processor.processAPIError(args(reset, 2))).toEqual({ retry: false })
    expect(sleeps.map((s) => s.ms)).toEqual([1_000, 2_000])
    for (const error of [apiError(401), apiError(400), new Error('maximum context length exceeded')]) {
      expect(await processor.processAPIError(args(error))).toEqual({ retry: false })
    }
    expect(await processor.processAPIError(args(tooManyRequests({ 'retry-after': '600' })))).toEqual({
      retry: true,
    })
    expect(sleeps.at(-1)?.ms).toBe(30_000)
  })
})

describe('StreamErrorRetryProcessor default sleep', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('waits the delay on a timer', async () => {
    vi.useFakeTimers()
    const processor = new StreamErrorRetryProcessor({ delayMs: 1_000 })
    let settled = false
    const pending = processor.processAPIError(args(apiError(429))).then((r) => {
      settled = true
      return r
    })
    await vi.advanceTimersByTimeAsync(999)
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(await pending).toEqual({ retry: true })
  })

  it('stops waiting when the request is aborted, and still answers retry', async () => {
    vi.useFakeTimers()
    const processor = new StreamErrorRetryProcessor({ delayMs: 3_600_000 })
    const controller = new AbortController()
    let settled = false
    const pending = processor.processAPIError(args(apiError(429), 0, controller.signal)).then((r) => {
      settled = true
      return r
    })
    await vi.advanceTimersByTimeAsync(10)
    expect(settled).toBe(false)
    controller.abort()
    expect(await pending).toEqual({ retry: true })
    expect(vi.getTimerCount()).toBe(0)
  })

  it('does not wait at all when the signal is already aborted', async () => {
    vi.useFakeTimers()
    const processor = new StreamErrorRetryProcessor({ delayMs: 3_600_000 })
    expect(await processor.processAPIError(args(apiError(429), 0, AbortSignal.abort()))).toEqual({
      retry: true,
    })
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('StreamErrorRetryProcessor identity and helpers', () => {
  it('is a Processor with Mastra’s id and name', () => {
    const processor: Processor = new StreamErrorRetryProcessor()
    expect(processor.id).toBe('stream-error-retry-processor')
    expect(processor.name).toBe('Stream Error Retry Processor')
    expect(typeof processor.processAPIError).toBe('function')
  })

  it('isBadRequestError matches statusCode 400 only', () => {
    expect(isBadRequestError(apiError(400))).toBe(true)
    expect(isBadRequestError({ statusCode: 400 })).toBe(true)
    expect(isBadRequestError({ status: 400 })).toBe(false)
    expect(isBadRequestError(apiError(401))).toBe(false)
    expect(isBadRequestError(null)).toBe(false)
    expect(isBadRequestError('400')).toBe(false)
  })

  it('isRetryableOpenAIResponsesStreamError reads only stream error payloads', () => {
    expect(
      isRetryableOpenAIResponsesStreamError({ type: 'error', error: { code: 'rate_limit_exceeded' } }),
    ).toBe(true)
    expect(isRetryableOpenAIResponsesStreamError({ code: 'rate_limit_exceeded' })).toBe(false)
    expect(isRetryableOpenAIResponsesStreamError({ type: 'response.failed', response: {} })).toBe(false)
    expect(isRetryableOpenAIResponsesStreamError({ type: 'error', error: 'server_error' })).toBe(false)
    expect(
      isRetryableOpenAIResponsesStreamError(wrap({ type: 'error', error: { code: 'server_error' } })),
    ).toBe(false)
  })
})

describe('StreamErrorRetryProcessor against @mastra/core 1.71', () => {
  // Mastra's processor sleeps on a real timer; an aborted signal makes it return at once.
  const aborted = AbortSignal.abort()
  // Mastra answers `undefined` where ours answers `{ retry: false }`: compare the decision.
  const decide = async (processor: { processAPIError(a: never): Promise<unknown> }, a: ProcessAPIErrorArgs) =>
    ((await processor.processAPIError(a as never)) as { retry?: boolean } | undefined)?.retry === true

  it.each(decisions)('same decision: %s', async (_name, options, error, retryCount, retry) => {
    const ours = new StreamErrorRetryProcessor({ ...options, sleep: async () => {} })
    const theirs = new MastraStreamErrorRetryProcessor(
      options as ConstructorParameters<typeof MastraStreamErrorRetryProcessor>[0],
    )
    expect(await decide(theirs, args(error, retryCount, aborted))).toBe(retry)
    expect(await decide(ours, args(error, retryCount, aborted))).toBe(retry)
  })

  describe('same delay', () => {
    afterEach(() => {
      vi.useRealTimers()
    })

    it.each(delays)('%s', async (_name, options, error, expectedMs) => {
      vi.useFakeTimers({ toFake: ['Date'], now })
      // Observe Mastra's delay through onRetry of a catch-all matcher placed after the test's own.
      const seen: number[] = []
      const catchAll = {
        match: () => true,
        onRetry: ({ delayMs }: { delayMs: number }) => void seen.push(delayMs),
      }
      const withSpy = (o: StreamErrorRetryProcessorOptions): StreamErrorRetryProcessorOptions => ({
        ...o,
        matchers: [
          ...(o.matchers ?? []).map((m) =>
            typeof m === 'function'
              ? { match: m, onRetry: catchAll.onRetry }
              : { ...m, onRetry: catchAll.onRetry },
          ),
          catchAll,
        ],
      })
      const theirs = new MastraStreamErrorRetryProcessor(withSpy(options) as never)
      await theirs.processAPIError(args(error, 0, aborted) as never)
      const ours = new StreamErrorRetryProcessor({ ...withSpy(options), sleep: async () => {} })
      await ours.processAPIError(args(error, 0, aborted))
      expect(seen).toEqual([expectedMs, expectedMs])
    })
  })
})

describe('StreamErrorRetryProcessor in a createScorer judge', () => {
  const usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: 5, reasoning: undefined },
  }
  const rateLimited = () =>
    apiError(429, {
      responseHeaders: { 'retry-after': '3' },
      responseBody: '{"error":{"code":"rate_limit"}}',
    })

  /** A judge that fails with the given errors, in order, then answers `{"score":0.7}`. */
  function flakyJudge(errors: unknown[]) {
    let calls = 0
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        const error = errors[calls++]
        if (error) throw error
        return {
          content: [{ type: 'text', text: '{"score":0.7}' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        }
      },
    })
    return { model, calls: () => calls }
  }

  function scorerWith(
    model: MockLanguageModelV3,
    processor: StreamErrorRetryProcessor,
    maxProcessorRetries: number,
  ) {
    return createScorer({
      id: 'quality',
      description: 'judged quality',
      judge: {
        model,
        instructions: 'Score the answer.',
        jsonPromptInjection: 'inline',
        errorProcessors: [processor],
        maxProcessorRetries,
      },
    }).generateScore({ description: 'score', createPrompt: () => 'How good is it?' })
  }

  it('retries a rate-limited judge call after the provider’s Retry-After, then scores', async () => {
    const { model, calls } = flakyJudge([rateLimited(), rateLimited()])
    const { processor, sleeps } = recorded({ maxRetries: 2 })
    const result = await scorerWith(model, processor, 2).run({ input: 'q', output: 'a' })
    expect(result.score).toBe(0.7)
    expect(calls()).toBe(3)
    expect(sleeps.map((s) => s.ms)).toEqual([3_000, 3_000])
  })

  it('fails at once on an authentication error', async () => {
    const { model, calls } = flakyJudge([apiError(401)])
    const { processor, sleeps } = recorded({ maxRetries: 2, retryUnknownErrors: true })
    await expect(scorerWith(model, processor, 2).run({ input: 'q', output: 'a' })).rejects.toThrow()
    expect(calls()).toBe(1)
    expect(sleeps).toEqual([])
  })

  it('stops after maxRetries', async () => {
    const { model, calls } = flakyJudge([rateLimited(), rateLimited(), rateLimited()])
    const { processor } = recorded({ maxRetries: 1 })
    await expect(scorerWith(model, processor, 5).run({ input: 'q', output: 'a' })).rejects.toThrow()
    expect(calls()).toBe(2)
  })
})
