import { generateText, type LanguageModelUsage, type ModelMessage, type OutputInterface } from 'ai'
import { untrustedContentInstructions } from './fence-untrusted.ts'
import {
  fallbackSchemaPlacement,
  injectSchema,
  resolveSchemaPlacement,
  type SchemaPlacement,
} from './json-prompt-injection.ts'
import type { Judge } from './judge.ts'
import type { JudgeConfig, JudgeModelSettings } from './judge-config.ts'
import { resolveMaxProcessorRetries } from './judge-config.ts'
import { isGovernedJudgeModel, judgeCallKey } from './judge-limiter.ts'
import type { JudgeModel } from './judge-model.ts'
import type { ResolvedOutputSchema } from './output-schema.ts'
import type { JudgeMessage, Processor } from './processor.ts'
import type { JudgeTokenUsage } from './scorer-result.ts'

/** One judge request: a prompt, and a schema when a structured answer is wanted. */
export interface JudgeRequest {
  model: JudgeModel
  /** The judge config after step overrides (instructions already checked). */
  judge: Partial<JudgeConfig> & { instructions: string }
  prompt: string
  /**
   * The nonce of the fence markers the prompt holds: the system message then names them
   * (`untrustedContentInstructions`). Absent when the prompt holds no fenced content.
   */
  fenceNonce?: string
  /** Absent: the judge answers in plain text. */
  schema?: ResolvedOutputSchema
  /** The pipeline's judge: resolver, limiter, default timeout, the `'auto'` rule. */
  runtime: Judge
  abortSignal?: AbortSignal
  /**
   * Called as each model call is sent (after the limiter let it through, not while it waits
   * there): the score ledger notes the request as under way.
   */
  onSend?: () => void
}

/** What the judge answered, and what it cost. */
export interface JudgeResponse {
  /** The parsed and validated object, or the text when no schema was asked for. */
  output: unknown
  text: string
  usage: JudgeTokenUsage
  attemptCount: number
  modelCallCount: number
  finishReason?: string
}

/** Telemetry gathered so far, attached to a failed judge request. */
export interface JudgeTelemetry {
  attemptCount: number
  modelCallCount: number
  usage: JudgeTokenUsage
  rawOutput?: string
  finishReason?: string
}

/** A judge request that failed; `cause` is the provider or format error, `telemetry` what was spent. */
export class JudgeRequestError extends Error {
  override readonly name: string
  readonly code?: string
  readonly telemetry: JudgeTelemetry
  constructor(cause: unknown, telemetry: JudgeTelemetry) {
    const message = cause instanceof Error ? cause.message : String(cause)
    super(message, { cause })
    this.telemetry = telemetry
    this.name = cause instanceof Error ? cause.name : 'JudgeRequestError'
    const record = cause as { code?: unknown; id?: unknown } | undefined
    const code =
      typeof record?.id === 'string' ? record.id : typeof record?.code === 'string' ? record.code : undefined
    if (code) this.code = code
  }
}

/** The judge's answer was not valid JSON or did not match the schema. */
export class JudgeFormatError extends Error {
  override readonly name = 'JudgeFormatError'
  readonly code = 'STRUCTURED_OUTPUT_SCHEMA_VALIDATION_FAILED'
  /** The answer that could not be used. */
  readonly text: string
  constructor(message: string, text: string) {
    super(message)
    this.text = text
  }
}

/** A processor called `abort()`: the judge request stops at once, without retries. */
export class ProcessorAbortError extends Error {
  override readonly name = 'ProcessorAbortError'
  readonly code = 'PROCESSOR_ABORT'
  readonly processorId: string
  constructor(processorId: string, reason?: string) {
    super(reason ?? `Aborted by processor ${processorId}`)
    this.processorId = processorId
  }
}

/** The judge request took longer than its timeout. */
export class JudgeTimeoutError extends Error {
  override readonly name = 'JudgeTimeoutError'
  readonly code = 'JUDGE_TIMEOUT'
  readonly timeoutMs: number
  constructor(timeoutMs: number) {
    super(`Judge request timed out after ${timeoutMs} ms`)
    this.timeoutMs = timeoutMs
  }
}

/**
 * Asks the judge once: input processors, then the model call (retried only when a processor's
 * `processAPIError` asks, within `maxProcessorRetries`), output processors, and for schema steps
 * JSON parsing with one more attempt, schema injected, when the answer is not valid JSON.
 */
export async function requestJudge(request: JudgeRequest): Promise<JudgeResponse> {
  const { judge, schema, runtime, model } = request
  const telemetry: JudgeTelemetry = { attemptCount: 0, modelCallCount: 0, usage: {} }
  try {
    const system = request.fenceNonce
      ? `${judge.instructions}\n\n${untrustedContentInstructions(request.fenceNonce)}`
      : judge.instructions
    let messages: JudgeMessage[] = [
      { role: 'system', content: system },
      { role: 'user', content: [{ type: 'text', text: request.prompt }] },
    ]
    for (const processor of judge.inputProcessors ?? []) {
      if (!processor.processInput) continue
      messages = (await processor.processInput({ messages, abort: abortFor(processor) })) ?? messages
    }
    if (!schema) {
      const text = await attempt(request, messages, undefined, telemetry)
      return { output: text, text, ...finish(telemetry) }
    }
    const mode = judge.jsonPromptInjection ?? 'auto'
    const placement = resolveSchemaPlacement(mode, () => runtime.supportsStructuredOutput(model))
    try {
      return await structuredAttempt(request, messages, placement, telemetry)
    } catch (error) {
      if (!(error instanceof JudgeFormatError)) throw error
      const fallback = fallbackSchemaPlacement(mode, judge.fallbackJsonPromptInjection)
      return await structuredAttempt(request, messages, fallback, telemetry)
    }
  } catch (error) {
    throw new JudgeRequestError(error, telemetry)
  }
}

function finish(telemetry: JudgeTelemetry) {
  return {
    usage: telemetry.usage,
    attemptCount: telemetry.attemptCount,
    modelCallCount: telemetry.modelCallCount,
    ...(telemetry.finishReason ? { finishReason: telemetry.finishReason } : {}),
  }
}

async function structuredAttempt(
  request: JudgeRequest,
  messages: JudgeMessage[],
  placement: SchemaPlacement,
  telemetry: JudgeTelemetry,
): Promise<JudgeResponse> {
  const schema = request.schema!
  const text = await attempt(
    request,
    injectSchema(messages, placement, schema.jsonSchema),
    placement,
    telemetry,
  )
  const parsed = parseJsonAnswer(text)
  if (!parsed.ok) throw new JudgeFormatError('Judge answer is not valid JSON', text)
  const validated = await schema.validate(parsed.value)
  if (!validated.success) throw new JudgeFormatError(validated.error.message, text)
  return { output: validated.value, text, ...finish(telemetry) }
}

/** Parses the judge's JSON answer; a single surrounding markdown code fence is tolerated. */
export function parseJsonAnswer(text: string): { ok: true; value: unknown } | { ok: false } {
  let body = text.trim()
  const fence = /^```(?:json)?\s*\n?([\s\S]*?)\n?```$/i.exec(body)
  if (fence) body = fence[1]!.trim()
  try {
    return { ok: true, value: JSON.parse(body) }
  } catch {
    return { ok: false }
  }
}

/** One structured-output attempt: the model call with processor retries, then output processors. */
async function attempt(
  request: JudgeRequest,
  messages: JudgeMessage[],
  placement: SchemaPlacement | undefined,
  telemetry: JudgeTelemetry,
): Promise<string> {
  telemetry.attemptCount++
  const { judge } = request
  const processors = [
    ...(judge.inputProcessors ?? []),
    ...(judge.outputProcessors ?? []),
    ...(judge.errorProcessors ?? []),
  ]
  const maxRetries = resolveMaxProcessorRetries(judge)
  let text: string
  for (let retryCount = 0; ; retryCount++) {
    try {
      text = await callModel(request, messages, placement, telemetry)
      break
    } catch (error) {
      if (error instanceof ProcessorAbortError || request.abortSignal?.aborted) throw error
      const retry = await runProcessAPIError(processors, error, messages, retryCount, request.abortSignal)
      if (!retry || retryCount >= maxRetries) throw error
    }
  }
  telemetry.rawOutput = text
  for (const processor of judge.outputProcessors ?? []) {
    if (!processor.processOutputResult) continue
    text = (await processor.processOutputResult({ text, abort: abortFor(processor) })) ?? text
  }
  return text
}

/** Mastra's order: input, output, then error processors; the first that asks for a retry wins. */
async function runProcessAPIError(
  processors: Processor[],
  error: unknown,
  messages: JudgeMessage[],
  retryCount: number,
  abortSignal: AbortSignal | undefined,
): Promise<boolean> {
  for (const processor of processors) {
    if (!processor.processAPIError) continue
    try {
      const result = await processor.processAPIError({
        error,
        messages,
        retryCount,
        abort: abortFor(processor),
        ...(abortSignal ? { abortSignal } : {}),
      })
      if (result?.retry) return true
    } catch (processorError) {
      // A processor that aborts ends the request; one that merely fails is skipped, as in Mastra.
      if (processorError instanceof ProcessorAbortError) throw processorError
    }
  }
  return false
}

function abortFor(processor: Processor) {
  return (reason?: string): never => {
    throw new ProcessorAbortError(processor.id, reason)
  }
}

/** A structured output that hands back the raw text: parsing happens here, not in the SDK. */
function nativeJsonOutput(schema: ResolvedOutputSchema): OutputInterface<string, string, never> {
  return {
    name: 'object',
    responseFormat: Promise.resolve({ type: 'json', schema: schema.jsonSchema }),
    parseCompleteOutput: async ({ text }) => text,
    parsePartialOutput: async () => undefined,
    createElementStreamTransform: () => undefined,
  }
}

/** Native structured output; OpenAI models get strict JSON Schema, as Mastra asks for it. */
function nativeOptions(
  schema: ResolvedOutputSchema,
  model: JudgeModel,
  providerOptions: JudgeModelSettings['providerOptions'],
) {
  const output = nativeJsonOutput(schema)
  if (!model.provider.startsWith('openai')) return { output }
  return {
    output,
    providerOptions: { ...providerOptions, openai: { strictJsonSchema: true, ...providerOptions?.openai } },
  }
}

/** One provider call, through the limiter, bounded by the timeout. */
async function callModel(
  request: JudgeRequest,
  messages: JudgeMessage[],
  placement: SchemaPlacement | undefined,
  telemetry: JudgeTelemetry,
): Promise<string> {
  const { model, judge, runtime } = request
  const timeoutMs = judge.timeoutMs ?? runtime.timeoutMs
  const settings = judge.modelSettings ?? {}
  // Resolves to `{ text, usage }` so a limiter can read the tokens a call used.
  const call = async () => {
    request.abortSignal?.throwIfAborted()
    request.onSend?.()
    telemetry.modelCallCount++
    // A timer cleared when the call ends, so finished calls hold no timers.
    const timeout = new AbortController()
    const timer = setTimeout(() => timeout.abort(new JudgeTimeoutError(timeoutMs)), timeoutMs)
    const signal = timeout.signal
    const abortSignal = request.abortSignal ? AbortSignal.any([request.abortSignal, signal]) : signal
    try {
      const result = await generateText({
        model,
        messages: messages as ModelMessage[],
        allowSystemInMessages: true,
        maxRetries: 0,
        abortSignal,
        ...settings,
        ...(placement === 'native' && request.schema
          ? nativeOptions(request.schema, model, settings.providerOptions)
          : {}),
      })
      const text = typeof result.output === 'string' ? result.output : result.text
      return { text, usage: result.totalUsage, finishReason: result.finishReason }
    } catch (error) {
      if (signal.aborted && !request.abortSignal?.aborted) throw new JudgeTimeoutError(timeoutMs)
      throw error
    } finally {
      clearTimeout(timer)
    }
  }
  // A governed model (judgeModel()) applies the limiter itself: scheduling twice could deadlock.
  const limiter = isGovernedJudgeModel(model) ? undefined : runtime.limiter
  const configured = typeof judge.model === 'string' ? judge.model : undefined
  const result = limiter
    ? await limiter.schedule(judgeCallKey(model, configured), call, request.abortSignal)
    : await call()
  addUsage(telemetry.usage, result.usage)
  telemetry.finishReason = result.finishReason
  return result.text
}

/** Adds an AI SDK usage record to the step's totals (Mastra's field names). */
function addUsage(total: JudgeTokenUsage, usage: LanguageModelUsage | undefined): void {
  if (!usage) return
  const add = (key: keyof JudgeTokenUsage, value: number | undefined) => {
    if (typeof value === 'number') total[key] = (total[key] ?? 0) + value
  }
  add('inputTokens', usage.inputTokens)
  add('outputTokens', usage.outputTokens)
  const totalTokens =
    usage.totalTokens ??
    (usage.inputTokens !== undefined || usage.outputTokens !== undefined
      ? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0)
      : undefined)
  add('totalTokens', totalTokens)
  add('reasoningTokens', usage.outputTokenDetails?.reasoningTokens)
  add('cachedInputTokens', usage.inputTokenDetails?.cacheReadTokens)
  add('cacheCreationInputTokens', usage.inputTokenDetails?.cacheWriteTokens)
}
