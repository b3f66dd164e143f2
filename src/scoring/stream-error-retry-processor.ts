import { APICallError } from '@ai-sdk/provider'
import type { ProcessAPIErrorArgs, ProcessAPIErrorResult, Processor } from './processor.ts'

/** Says whether an error (or one error of its `cause` chain) should be retried. */
export type StreamErrorRetryMatcher = (error: unknown) => boolean

/** A delay before retrying, in ms: fixed, or computed from the failed request. */
export type StreamErrorRetryDelayMs = number | ((args: ProcessAPIErrorArgs) => number | Promise<number>)

/**
 * A matcher with its own retry policy: when it is the first to match, its `maxRetries` and
 * `delayMs` replace the processor's, and `onRetry` is told about each retry.
 */
export interface StreamErrorRetryMatcherConfig {
  match: StreamErrorRetryMatcher
  maxRetries?: number
  delayMs?: StreamErrorRetryDelayMs
  onRetry?: (args: ProcessAPIErrorArgs & { delayMs: number }) => void | Promise<void>
}

/** A matcher entry: a plain predicate, or a predicate with its own policy. */
export type StreamErrorRetryMatcherEntry = StreamErrorRetryMatcher | StreamErrorRetryMatcherConfig

/** Options of {@link StreamErrorRetryProcessor}: Mastra's, plus test seams for time. */
export interface StreamErrorRetryProcessorOptions {
  /** Retries per failed request (default 1). */
  maxRetries?: number
  /** Errors to retry beyond the built-in rules; the first matching entry's policy applies. */
  matchers?: StreamErrorRetryMatcherEntry[]
  /** Retry errors nothing matched, except known authorization failures (default false). */
  retryUnknownErrors?: boolean
  /** Delay before each retry (default 0); negative or non-finite values count as 0. */
  delayMs?: StreamErrorRetryDelayMs
  /** Cap on a provider's Retry-After delay (default 30 000 ms); does not cap `delayMs`. */
  maxRetryAfterMs?: number
  /** Waits before a retry, resolving early when the signal aborts. Default: a timer. */
  sleep?: (ms: number, abortSignal?: AbortSignal) => Promise<void>
  /** Clock for HTTP-date Retry-After values, in epoch ms. Default: `Date.now`. */
  now?: () => number
}

const DEFAULT_MAX_RETRIES = 1
const DEFAULT_MAX_RETRY_AFTER_MS = 30_000
const RETRYABLE_OPENAI_ERROR_CODES = [
  'rate_limit',
  'server_error',
  'internal_error',
  'timeout',
  'temporarily_unavailable',
  'service_unavailable',
  'overloaded',
]
const OPENAI_RETRY_MESSAGE_PATTERN = /you can retry your request/i
const TERMINAL_AUTHORIZATION_ERROR_CODES = new Set([
  'access_denied',
  'authentication_error',
  'forbidden',
  'invalid_api_key',
  'permission_denied',
])

/** Any object, arrays and class instances included (error shapes are read field by field). */
function isNonNullObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

function stringProperty(value: Record<string, unknown>, key: string): string | undefined {
  const property = value[key]
  return typeof property === 'string' ? property : undefined
}

function causeOf(error: unknown): unknown {
  return isNonNullObject(error) ? error.cause : undefined
}

function openAIErrorPayload(error: unknown): Record<string, unknown> | undefined {
  if (!isNonNullObject(error)) return undefined
  if (error.type === 'error' && isNonNullObject(error.error)) return error.error
  if (error.type === 'response.failed' && isNonNullObject(error.response)) {
    const responseError = error.response.error
    return isNonNullObject(responseError) ? responseError : undefined
  }
  return undefined
}

/**
 * Matches the transient error events of OpenAI's Responses stream (`{type:'error', error}` or
 * `{type:'response.failed', response:{error}}`): rate limits, server errors, timeouts, overload,
 * or a message saying the request can be retried.
 */
export function isRetryableOpenAIResponsesStreamError(error: unknown): boolean {
  const payload = openAIErrorPayload(error)
  if (!payload) return false
  const code = stringProperty(payload, 'code') ?? stringProperty(payload, 'type')
  if (code) {
    const normalized = code.toLowerCase()
    if (RETRYABLE_OPENAI_ERROR_CODES.some((retryable) => normalized.includes(retryable))) return true
  }
  const message = stringProperty(payload, 'message')
  return message !== undefined && OPENAI_RETRY_MESSAGE_PATTERN.test(message)
}

/**
 * Matches HTTP 400 (Bad Request) errors, for opting into retrying the 400s some providers return
 * while degraded. Bad requests are not retried unless a matcher like this one says so.
 */
export function isBadRequestError(error: unknown): boolean {
  return isNonNullObject(error) && error.statusCode === 400
}

function hasRetryableProviderMetadata(error: unknown): boolean {
  if (APICallError.isInstance(error)) return error.isRetryable === true
  return isNonNullObject(error) && error.isRetryable === true
}

/** Status 401/403 or an auth error code anywhere in the error, its data, JSON body or causes. */
function isKnownTerminalAuthorizationError(error: unknown): boolean {
  const visited = new WeakSet<object>()
  const visit = (candidate: unknown): boolean => {
    if (!isNonNullObject(candidate) || visited.has(candidate)) return false
    visited.add(candidate)

    const status = candidate.statusCode ?? candidate.status
    if (status === 401 || status === 403) return true
    const code = stringProperty(candidate, 'code') ?? stringProperty(candidate, 'type')
    if (code && TERMINAL_AUTHORIZATION_ERROR_CODES.has(code.trim().toLowerCase())) return true

    const body = stringProperty(candidate, 'responseBody')
    let parsedBody: unknown
    if (body) {
      try {
        parsedBody = JSON.parse(body)
      } catch {
        // not JSON: nothing to look at
      }
    }
    return visit(candidate.error) || visit(candidate.data) || visit(parsedBody) || visit(candidate.cause)
  }
  return visit(error)
}

type Policy = Omit<StreamErrorRetryMatcherConfig, 'match'>

/** First match wins, error by error down the `cause` chain: matchers, then `isRetryable`. */
function findPolicy(error: unknown, entries: readonly StreamErrorRetryMatcherConfig[]): Policy | undefined {
  const visited = new WeakSet<object>()
  let candidate = error
  for (;;) {
    if (isNonNullObject(candidate)) {
      if (visited.has(candidate)) return undefined
      visited.add(candidate)
    }
    for (const { match, ...policy } of entries) {
      if (match(candidate)) return policy
    }
    if (hasRetryableProviderMetadata(candidate)) return {}
    candidate = causeOf(candidate)
    if (candidate === undefined) return undefined
  }
}

function headerValue(error: Record<string, unknown>, name: string): string | undefined {
  const headers = error.responseHeaders
  if (!isNonNullObject(headers)) return undefined
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && typeof value === 'string') return value
  }
  return undefined
}

function parseRetryAfterMs(value: string): number | undefined {
  const trimmed = value.trim()
  return /^\d+$/.test(trimmed) ? Number(trimmed) : undefined
}

/** `Retry-After` is delay-seconds or an HTTP date; a past date or a decimal gives nothing. */
function parseRetryAfter(value: string, now: number): number | undefined {
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1_000
  if (/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i.test(trimmed)) return undefined
  const retryAt = Date.parse(trimmed)
  return Number.isFinite(retryAt) && retryAt > now ? retryAt - now : undefined
}

/** The provider's requested delay from `responseHeaders` of the error or a cause. */
function retryAfterMsOf(error: unknown, now: number): number | undefined {
  const visited = new WeakSet<object>()
  let candidate = error
  while (candidate !== undefined) {
    if (isNonNullObject(candidate)) {
      if (visited.has(candidate)) return undefined
      visited.add(candidate)
      const ms = headerValue(candidate, 'retry-after-ms')
      const fromMs = ms === undefined ? undefined : parseRetryAfterMs(ms)
      if (fromMs !== undefined && Number.isFinite(fromMs)) return fromMs
      const seconds = headerValue(candidate, 'retry-after')
      const fromSeconds = seconds === undefined ? undefined : parseRetryAfter(seconds, now)
      if (fromSeconds !== undefined && Number.isFinite(fromSeconds)) return fromSeconds
    }
    candidate = causeOf(candidate)
  }
  return undefined
}

function clampDelayMs(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0
}

/** Waits `ms`, resolving early (not rejecting) when `abortSignal` aborts. */
function sleepUnlessAborted(ms: number, abortSignal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const onAbort = () => {
      if (timer) clearTimeout(timer)
      resolve()
    }
    abortSignal?.addEventListener('abort', onAbort, { once: true })
    if (abortSignal?.aborted) {
      onAbort()
      return
    }
    timer = setTimeout(() => {
      abortSignal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
  })
}

/**
 * Retries a failed judge request when the failure is transient, as Mastra's processor of the
 * same name: provider `isRetryable` metadata, OpenAI stream errors and custom matchers say what
 * is transient; auth, bad-request and context-length errors fail at once unless matched; the
 * provider's Retry-After is honoured up to a cap. An abort ends the wait early (still a retry).
 */
export class StreamErrorRetryProcessor implements Processor {
  readonly id = 'stream-error-retry-processor' as const
  readonly name = 'Stream Error Retry Processor'

  readonly #maxRetries: number
  readonly #entries: StreamErrorRetryMatcherConfig[]
  readonly #retryUnknownErrors: boolean
  readonly #delayMs: StreamErrorRetryDelayMs | undefined
  readonly #maxRetryAfterMs: number
  readonly #sleep: (ms: number, abortSignal?: AbortSignal) => Promise<void>
  readonly #now: () => number

  constructor(options: StreamErrorRetryProcessorOptions = {}) {
    this.#maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES
    this.#entries = [
      { match: isRetryableOpenAIResponsesStreamError },
      ...(options.matchers ?? []).map((entry) => (typeof entry === 'function' ? { match: entry } : entry)),
    ]
    this.#retryUnknownErrors = options.retryUnknownErrors ?? false
    this.#delayMs = options.delayMs
    this.#maxRetryAfterMs = clampDelayMs(options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS)
    this.#sleep = options.sleep ?? sleepUnlessAborted
    this.#now = options.now ?? (() => Date.now())
  }

  /** Decides whether the failed request is tried again, waiting the retry delay first. */
  async processAPIError(args: ProcessAPIErrorArgs): Promise<ProcessAPIErrorResult> {
    const { error, retryCount, abortSignal } = args
    const policy =
      findPolicy(error, this.#entries) ??
      (this.#retryUnknownErrors && !isKnownTerminalAuthorizationError(error) ? {} : undefined)
    if (!policy) return { retry: false }
    if (retryCount >= (policy.maxRetries ?? this.#maxRetries)) return { retry: false }

    const delaySetting = policy.delayMs ?? this.#delayMs
    const configuredMs =
      delaySetting === undefined
        ? 0
        : clampDelayMs(typeof delaySetting === 'function' ? await delaySetting(args) : delaySetting)
    const retryAfterMs = retryAfterMsOf(error, this.#now())
    const providerMs = retryAfterMs === undefined ? 0 : Math.min(retryAfterMs, this.#maxRetryAfterMs)
    const delayMs = Math.max(configuredMs, providerMs)

    await policy.onRetry?.({ ...args, delayMs })
    if (delayMs > 0) await this.#sleep(delayMs, abortSignal)
    return { retry: true }
  }
}
