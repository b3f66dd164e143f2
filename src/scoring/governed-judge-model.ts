import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider'
import { wrapLanguageModel } from 'ai'
import { currentJudge } from './judge.ts'
import { GOVERNED_JUDGE_MODEL, type JudgeCallKey, judgeCallKey } from './judge-limiter.ts'
import {
  type JudgeModel,
  type JudgeModelResolver,
  type OpenAICompatibleModelConfig,
  resolveJudgeModel,
} from './judge-model.ts'
import { JudgeTimeoutError } from './judge-request.ts'

/** Options of `judgeModel`. */
export interface GovernedJudgeModelOptions {
  /** Per-call timeout in milliseconds; default: the judge's (`judges.timeoutMs`). */
  timeoutMs?: number
}

/**
 * What `judgeModel` returns: an AI SDK v4 language model. The results are typed loosely on
 * purpose: Mastra's types carry their own copy of the v4 specification, which lags the AI SDK's
 * (a finish reason added since), so the exact type would not be accepted by Mastra's scorer
 * factories although the objects are.
 */
export interface GovernedJudgeModel {
  readonly specificationVersion: 'v4'
  readonly provider: string
  readonly modelId: string
  readonly supportedUrls: PromiseLike<Record<string, RegExp[]>>
  doGenerate(options: LanguageModelV4CallOptions): PromiseLike<any>
  doStream(options: LanguageModelV4CallOptions): PromiseLike<any>
  /** Tells tracescore's own judge not to schedule this model's calls a second time. */
  readonly [GOVERNED_JUDGE_MODEL]: true
}

type StreamResult = Awaited<ReturnType<LanguageModelV4['doStream']>>
type TokenCounts = { inputTokens?: number; outputTokens?: number; totalTokens?: number }

/**
 * A judge model for scorers that call their model themselves, such as `@mastra/evals`' LLM
 * scorers: `createAnswerRelevancyScorer({ model: judgeModel('openai/gpt-5-mini') })`. Every
 * call (generate or stream) waits for the limiter of the judge of the scoring in progress (the
 * pipeline's: per-model concurrency, requests and tokens per minute from `judges`) and is cut off
 * after the judge's timeout; its token usage feeds the tokens-per-minute limit. The scorer's
 * result reports the usage, so daily token budgets and the judge metrics count these calls too.
 *
 * `model` is a `'provider/model'` id (resolved when first called, by the judge's resolver), an
 * AI SDK model instance, or Mastra's OpenAI-compatible config object.
 */
export function judgeModel(
  model: string | JudgeModel | OpenAICompatibleModelConfig,
  options: GovernedJudgeModelOptions = {},
): GovernedJudgeModel {
  const { provider, modelId, configuredId } = namesOf(model)
  const key = judgeCallKey({ provider, modelId }, configuredId)
  // One resolution per resolver: pipelines with different judges may share the scorer.
  const resolved = new WeakMap<JudgeModelResolver, Promise<LanguageModelV4>>()
  const inner = () => {
    const { resolveModel } = currentJudge()
    let resolving = resolved.get(resolveModel)
    if (!resolving) {
      resolving = Promise.resolve(resolveJudgeModel(model, resolveModel)).then(
        // No middleware: only adapts an older specification version to v4.
        (m) => wrapLanguageModel({ model: m, middleware: [] }),
        (error) => {
          resolved.delete(resolveModel)
          throw error
        },
      )
      resolved.set(resolveModel, resolving)
    }
    return resolving
  }
  const timeoutOf = () => options.timeoutMs ?? currentJudge().timeoutMs
  return {
    specificationVersion: 'v4',
    provider,
    modelId,
    get supportedUrls() {
      return inner().then((m) => m.supportedUrls)
    },
    doGenerate: async (call) => generate(await inner(), key, call, timeoutOf()),
    doStream: async (call) => stream(await inner(), key, call, timeoutOf()),
    [GOVERNED_JUDGE_MODEL]: true,
  } satisfies LanguageModelV4 & GovernedJudgeModel
}

/** Provider and model names of a model, and the `'provider/model'` id when it is given as one. */
function namesOf(model: string | JudgeModel | OpenAICompatibleModelConfig): {
  provider: string
  modelId: string
  configuredId?: string
} {
  const split = (id: string) => {
    const slash = id.indexOf('/')
    return { provider: id.slice(0, Math.max(0, slash)), modelId: id.slice(slash + 1), configuredId: id }
  }
  if (typeof model === 'string') return split(model)
  if ('specificationVersion' in model) return { provider: model.provider, modelId: model.modelId }
  if ('id' in model) return split(model.id)
  return {
    provider: model.providerId,
    modelId: model.modelId,
    configuredId: `${model.providerId}/${model.modelId}`,
  }
}

/** A signal that aborts with the caller's signal or after `timeoutMs`. */
function deadline(timeoutMs: number, outer: AbortSignal | undefined) {
  const timeout = new AbortController()
  const timer = setTimeout(() => timeout.abort(new JudgeTimeoutError(timeoutMs)), timeoutMs)
  return {
    signal: outer ? AbortSignal.any([outer, timeout.signal]) : timeout.signal,
    clear: () => clearTimeout(timer),
    /** The error to report: the timeout's own when the timeout (not the caller) aborted. */
    reason: (error: unknown) => (timeout.signal.aborted && !outer?.aborted ? timeout.signal.reason : error),
  }
}

/** Runs `call` through the judge's limiter, if it has one. */
function schedule<T>(key: JudgeCallKey, call: () => Promise<T>, abortSignal: AbortSignal | undefined) {
  const { limiter } = currentJudge()
  return limiter ? limiter.schedule(key, call, abortSignal) : call()
}

async function generate(
  inner: LanguageModelV4,
  key: JudgeCallKey,
  call: LanguageModelV4CallOptions,
  timeoutMs: number,
) {
  // Resolves to `{ usage }` (plain numbers) so the rate limiter counts the tokens.
  const { result } = await schedule(
    key,
    async () => {
      const limit = deadline(timeoutMs, call.abortSignal)
      try {
        const result = await inner.doGenerate({ ...call, abortSignal: limit.signal })
        return { result, usage: tokenCounts(result.usage) }
      } catch (error) {
        throw limit.reason(error)
      } finally {
        limit.clear()
      }
    },
    call.abortSignal,
  )
  return result
}

/**
 * A streamed call holds its limiter slot until the stream has ended (read to the end, failed,
 * cancelled, or aborted), so concurrency counts calls in progress, not calls started.
 */
async function stream(
  inner: LanguageModelV4,
  key: JudgeCallKey,
  call: LanguageModelV4CallOptions,
  timeoutMs: number,
): Promise<StreamResult> {
  let handOver!: (result: StreamResult) => void
  const handedOver = new Promise<StreamResult>((resolve) => {
    handOver = resolve
  })
  const scheduled = schedule(
    key,
    async () => {
      const limit = deadline(timeoutMs, call.abortSignal)
      try {
        const result = await Promise.resolve(inner.doStream({ ...call, abortSignal: limit.signal })).catch(
          (error: unknown) => {
            throw limit.reason(error)
          },
        )
        const metered = meter(result.stream, limit.signal, limit.reason)
        handOver({ ...result, stream: metered.stream })
        return { usage: await metered.ended }
      } finally {
        limit.clear()
      }
    },
    call.abortSignal,
  )
  // Rejects when the call fails before its stream is handed over; else the stream's result.
  return Promise.race([handedOver, scheduled.then(() => handedOver)])
}

/** Passes the stream through, reading the usage of its `finish` part; `ended` resolves once it is over. */
function meter(
  source: ReadableStream<LanguageModelV4StreamPart>,
  signal: AbortSignal,
  reason: (error: unknown) => unknown,
) {
  let usage: TokenCounts | undefined
  let end!: () => void
  const ended = new Promise<TokenCounts | undefined>((resolve) => {
    end = () => resolve(usage)
  })
  // A stream nobody reads to the end still frees its slot when it is aborted or times out.
  signal.addEventListener('abort', () => end(), { once: true })
  const reader = source.getReader()
  const stream = new ReadableStream<LanguageModelV4StreamPart>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read()
        if (done) {
          end()
          controller.close()
          return
        }
        if (value.type === 'finish') usage = tokenCounts(value.usage)
        controller.enqueue(value)
      } catch (error) {
        end()
        controller.error(reason(error))
      }
    },
    async cancel(why) {
      end()
      await reader.cancel(why)
    },
  })
  return { stream, ended }
}

/** A v4 usage record as plain token counts. */
function tokenCounts(usage: LanguageModelV4Usage | undefined): TokenCounts | undefined {
  if (!usage) return undefined
  const inputTokens = usage.inputTokens.total
  const outputTokens = usage.outputTokens.total
  return {
    ...(inputTokens !== undefined ? { inputTokens } : {}),
    ...(outputTokens !== undefined ? { outputTokens } : {}),
    totalTokens: (inputTokens ?? 0) + (outputTokens ?? 0),
  }
}
