import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { LanguageModel } from 'ai'
import { judgeProviderEnv } from '../config/env.ts'

/** A language model instance (any AI SDK specification version). */
export type JudgeModel = Exclude<LanguageModel, string>

/** Turns a `'provider/model'` id into a model instance. */
export type JudgeModelResolver = (modelId: string) => JudgeModel | Promise<JudgeModel>

/**
 * Mastra's OpenAI-compatible model config: an id (or provider + model) with an optional endpoint
 * URL, key and headers, e.g. `{ id: 'ollama/llama3.2', url: 'http://localhost:11434/v1' }`.
 */
export type OpenAICompatibleModelConfig = {
  url?: string
  apiKey?: string
  headers?: Record<string, string>
  api?: 'chat' | 'responses'
} & ({ id: `${string}/${string}` } | { providerId: string; modelId: string })

/** Anything with `languageModel(id)`, e.g. an AI SDK provider registry (`createProviderRegistry`). */
export interface LanguageModelSource {
  languageModel(modelId: string): JudgeModel
}

/** Raised when a judge model id cannot be resolved: names the provider and what is missing. */
export class JudgeModelResolutionError extends Error {
  override readonly name = 'JudgeModelResolutionError'
  readonly code = 'JUDGE_MODEL_UNRESOLVED'
}

const WELL_KNOWN_COMPATIBLE: Record<string, string> = {
  ollama: 'http://localhost:11434/v1',
  lmstudio: 'http://localhost:1234/v1',
}

/**
 * The default resolver: `openai/...` (OPENAI_API_KEY, OPENAI_BASE_URL), `anthropic/...`
 * (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL), and any OpenAI-compatible endpoint `<name>/...`
 * configured by `<NAME>_BASE_URL` (+ optional `<NAME>_API_KEY`; `ollama` and `lmstudio` default
 * to their local ports). Resolved models are cached per id.
 */
export function createEnvJudgeModelResolver(
  env: Readonly<Record<string, string | undefined>> = judgeProviderEnv(),
): JudgeModelResolver {
  const cache = new Map<string, JudgeModel>()
  return (modelId) => {
    const cached = cache.get(modelId)
    if (cached) return cached
    const model = resolveFromEnv(modelId, env)
    cache.set(modelId, model)
    return model
  }
}

function resolveFromEnv(modelId: string, env: Readonly<Record<string, string | undefined>>): JudgeModel {
  const slash = modelId.indexOf('/')
  if (slash <= 0 || slash === modelId.length - 1) {
    throw new JudgeModelResolutionError(
      `Judge model '${modelId}' is not of the form 'provider/model' (e.g. 'openai/gpt-5-mini')`,
    )
  }
  const provider = modelId.slice(0, slash)
  const name = modelId.slice(slash + 1)
  const prefix = provider.toUpperCase().replace(/[^A-Z0-9]/g, '_')
  const apiKey = env[`${prefix}_API_KEY`]
  const baseURL = env[`${prefix}_BASE_URL`]
  if (provider === 'openai' || provider === 'anthropic') {
    if (!apiKey) {
      throw new JudgeModelResolutionError(
        `Judge model '${modelId}': provider '${provider}' needs ${prefix}_API_KEY in the environment`,
      )
    }
    const create = provider === 'openai' ? createOpenAI : createAnthropic
    return create({ apiKey, ...(baseURL ? { baseURL } : {}) })(name)
  }
  const compatibleURL = baseURL ?? WELL_KNOWN_COMPATIBLE[provider]
  if (!compatibleURL) {
    throw new JudgeModelResolutionError(
      `Judge model '${modelId}': unknown provider '${provider}'. Use openai, anthropic, ollama, lmstudio, ` +
        `set ${prefix}_BASE_URL for an OpenAI-compatible endpoint, or give the judge a resolver (judgeFromConfig(config, { resolveModel }))`,
    )
  }
  return createOpenAICompatible({
    name: provider,
    baseURL: compatibleURL,
    ...(apiKey ? { apiKey } : {}),
  }).chatModel(name)
}

/** Normalizes what `createJudge({ resolveModel })` accepts into a resolver function. */
export function toJudgeModelResolver(source: JudgeModelResolver | LanguageModelSource): JudgeModelResolver {
  if (typeof source === 'function') return source
  return (modelId) => {
    // AI SDK registries separate provider and model with ':'; scorers use Mastra's '/'.
    const slash = modelId.indexOf('/')
    try {
      return source.languageModel(modelId)
    } catch (error) {
      if (slash <= 0) throw error
      return source.languageModel(`${modelId.slice(0, slash)}:${modelId.slice(slash + 1)}`)
    }
  }
}

/**
 * Turns a judge's `model` into a model instance: instances pass through, ids go through
 * `resolveModelId`, and Mastra's config objects build an OpenAI-compatible (or OpenAI
 * `responses`) model from their URL, or resolve their id when they have none.
 */
export async function resolveJudgeModel(
  model: string | JudgeModel | OpenAICompatibleModelConfig,
  resolveModelId: JudgeModelResolver,
): Promise<JudgeModel> {
  if (typeof model === 'string') return resolveModelId(model)
  if ('specificationVersion' in model) return model
  const [provider, modelId] =
    'id' in model
      ? [model.id.slice(0, model.id.indexOf('/')), model.id.slice(model.id.indexOf('/') + 1)]
      : [model.providerId, model.modelId]
  if (!provider || !modelId) {
    throw new JudgeModelResolutionError(
      `Judge model config needs 'provider/model' as id, or providerId and modelId`,
    )
  }
  const settings = {
    ...(model.url ? { baseURL: model.url } : {}),
    ...(model.apiKey ? { apiKey: model.apiKey } : {}),
    ...(model.headers ? { headers: model.headers } : {}),
  }
  if (model.api === 'responses') return createOpenAI(settings).responses(modelId)
  if (model.url)
    return createOpenAICompatible({ name: provider, baseURL: model.url, ...settings }).chatModel(modelId)
  if (model.apiKey && provider === 'openai') return createOpenAI(settings)(modelId)
  if (model.apiKey && provider === 'anthropic') return createAnthropic(settings)(modelId)
  return resolveModelId(`${provider}/${modelId}`)
}
