import type { JudgeModel, OpenAICompatibleModelConfig } from './judge-model.ts'
import type { Processor } from './processor.ts'

/**
 * How the output schema reaches the judge: `false` native structured output, `true`/`'system'`
 * appended to the system message, `'inline'` appended to the user message, `'auto'` (default)
 * native for providers known to support it, inline otherwise.
 */
export type JsonPromptInjection = boolean | 'system' | 'inline' | 'auto'

/** The judge of a scorer (`createScorer({ judge })`): model, system prompt and request policy. */
export interface JudgeConfig {
  /**
   * An AI SDK language model, a `'provider/model'` id resolved by the judge model resolver, or
   * Mastra's OpenAI-compatible config (`{ id, url?, apiKey?, headers? }`).
   */
  model: string | JudgeModel | OpenAICompatibleModelConfig
  /** The judge's system prompt. */
  instructions: string
  jsonPromptInjection?: JsonPromptInjection
  /** Placement used only for the one retry after an answer that is not valid JSON. */
  fallbackJsonPromptInjection?: 'system' | 'inline'
  inputProcessors?: Processor[]
  outputProcessors?: Processor[]
  errorProcessors?: Processor[]
  /** Cap on processor-requested retries of one judge request; 10 when `errorProcessors` is set. */
  maxProcessorRetries?: number
  /** Call settings forwarded to the model (temperature, maxOutputTokens, ...). */
  modelSettings?: JudgeModelSettings
  /** Per-request timeout in milliseconds (tracescore); defaults to the pipeline judge's `timeoutMs`. */
  timeoutMs?: number
}

/** Model call settings a judge may set. */
export interface JudgeModelSettings {
  temperature?: number
  maxOutputTokens?: number
  topP?: number
  topK?: number
  seed?: number
  stopSequences?: string[]
  presencePenalty?: number
  frequencyPenalty?: number
  headers?: Record<string, string>
  /** The AI SDK's own retries per call; 0 by default so they do not multiply processor retries. */
  maxRetries?: number
  providerOptions?: Record<string, Record<string, any>>
}

/** A prompt step's own judge: any field given replaces the scorer's (processor arrays replace too). */
export type StepJudgeConfig = Partial<JudgeConfig>

/** Default cap on processor retries when `errorProcessors` is set without `maxProcessorRetries` (seed: 10). */
export const DEFAULT_MAX_PROCESSOR_RETRIES = 10

/** The judge a step uses: the step's fields over the scorer's, field by field. */
export function mergeJudgeConfig(
  scorer: Partial<JudgeConfig> | undefined,
  step: StepJudgeConfig | undefined,
): Partial<JudgeConfig> {
  if (!step) return scorer ?? {}
  if (!scorer) return step
  const merged: Partial<JudgeConfig> = { ...scorer }
  for (const key of Object.keys(step) as (keyof JudgeConfig)[]) {
    if (step[key] !== undefined) (merged as Record<string, unknown>)[key] = step[key]
  }
  return merged
}

/** The effective retry cap: explicit value, else 10 with error processors, else 0. */
export function resolveMaxProcessorRetries(judge: Partial<JudgeConfig>): number {
  if (judge.maxProcessorRetries !== undefined) return judge.maxProcessorRetries
  return judge.errorProcessors && judge.errorProcessors.length > 0 ? DEFAULT_MAX_PROCESSOR_RETRIES : 0
}
