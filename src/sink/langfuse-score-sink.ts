import { ConfigError } from '../config/config-error.ts'
import { configDefaults } from '../config/defaults.ts'
import { checkHttpUrl } from '../config/http-url.ts'
import { postJson } from './http-json.ts'
import { type LangfuseDataType, type LangfuseScoreRequest, toLangfuseScore } from './langfuse-score.ts'
import type { RetryOptions } from './retry-policy.ts'
import { createRetryingDelivery } from './retrying-delivery.ts'
import type { PassThreshold } from './score-attributes.ts'
import { hasValidTarget } from './score-target.ts'
import type { CountingSink } from './sink.ts'

/** Configuration of the Langfuse score sink; unset fields come from the `LANGFUSE_*` variables. */
export interface LangfuseScoreSinkConfig extends RetryOptions {
  /** Default `LANGFUSE_BASE_URL`, `LANGFUSE_HOST`, then `https://cloud.langfuse.com`. */
  url?: string
  /** Default `LANGFUSE_PUBLIC_KEY`. */
  publicKey?: string
  /** Default `LANGFUSE_SECRET_KEY`. */
  secretKey?: string
  /** Langfuse environment of the scores; default `LANGFUSE_TRACING_ENVIRONMENT`. */
  environment?: string
  /** Forces a data type per scorer id. */
  dataTypes?: Record<string, LangfuseDataType>
  passThreshold?: PassThreshold
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number
  env?: Record<string, string | undefined>
}

function missingKey(key: string, variable: string): never {
  const message = `expected a key (or ${variable}), got nothing`
  throw new ConfigError(`${key}: ${message}`, [{ key, message }])
}

/**
 * Writes each score to Langfuse (`POST /api/public/scores`, Basic auth), attached to the trace
 * and to the agent-run observation (Langfuse ids are the OTel ids). Each score has a
 * deterministic `id`, so a retry after a lost answer or a replay overwrites instead of adding.
 * Failed scorings have no value to write and are counted as skipped.
 */
export function createLangfuseScoreSink(config: LangfuseScoreSinkConfig = {}): CountingSink {
  const env = config.env ?? process.env
  const baseUrl = checkHttpUrl(
    config.url !== undefined
      ? 'sinks.langfuse.url'
      : env.LANGFUSE_BASE_URL
        ? 'LANGFUSE_BASE_URL'
        : 'LANGFUSE_HOST',
    (config.url ?? env.LANGFUSE_BASE_URL ?? env.LANGFUSE_HOST ?? 'https://cloud.langfuse.com').trim(),
  ).replace(/\/+$/, '')
  const publicKey = config.publicKey ?? env.LANGFUSE_PUBLIC_KEY
  const secretKey = config.secretKey ?? env.LANGFUSE_SECRET_KEY
  if (!publicKey) missingKey('sinks.langfuse.publicKey', 'LANGFUSE_PUBLIC_KEY')
  if (!secretKey) missingKey('sinks.langfuse.secretKey', 'LANGFUSE_SECRET_KEY')
  const url = `${baseUrl}/api/public/scores`
  const headers = { authorization: `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString('base64')}` }
  const options = {
    environment: config.environment ?? env.LANGFUSE_TRACING_ENVIRONMENT,
    passThreshold: config.passThreshold,
    dataTypes: config.dataTypes,
  }
  const timeoutMs = config.timeoutMs ?? configDefaults.sinks.timeoutMs
  const delivery = createRetryingDelivery({
    sink: 'langfuse',
    retry: config.retry,
    sleep: config.sleep,
    onRetry: config.onRetry,
  })
  return {
    name: 'langfuse',
    async deliver(records) {
      const scores = records
        .filter(hasValidTarget)
        .map((r) => toLangfuseScore(r, options))
        .filter((s) => s !== undefined)
      delivery.skip(records.length - scores.length)
      if (scores.length === 0) return
      // The API takes one score per request; a retry re-sends only those not yet acknowledged.
      const pending = new Set<LangfuseScoreRequest>(scores)
      await delivery.run(scores.length, async () => {
        for (const score of pending) {
          await postJson({ url, body: score, headers, timeoutMs })
          pending.delete(score)
        }
      })
    },
    close: async () => delivery.stop(),
    stats: delivery.stats,
  }
}
