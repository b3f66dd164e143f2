import { ConfigError } from '../config/config-error.ts'
import { configDefaults } from '../config/defaults.ts'
import { checkHttpUrl } from '../config/http-url.ts'
import { createCountingSink } from './counting-sink.ts'
import { postJson } from './http-json.ts'
import { type LangfuseDataType, type LangfuseScoreRequest, toLangfuseScore } from './langfuse-score.ts'
import type { RetryOptions } from './retry-policy.ts'
import type { PassThreshold } from './score-attributes.ts'
import { hasValidTarget } from './score-target.ts'
import type { CountingSink } from './sink.ts'

/** Configuration of the Langfuse score sink (the `LANGFUSE_*` variables are read by `resolveConfig`). */
export interface LangfuseScoreSinkConfig extends RetryOptions {
  /** Default `https://cloud.langfuse.com`. */
  url?: string
  /** Required. */
  publicKey?: string
  /** Required. */
  secretKey?: string
  /** Langfuse environment of the scores. */
  environment?: string
  /** Forces a data type per scorer id. */
  dataTypes?: Record<string, LangfuseDataType>
  passThreshold?: PassThreshold
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number
}

function missingKey(key: string): never {
  const message = 'expected a key, got nothing'
  throw new ConfigError(`${key}: ${message}`, [{ key, message }])
}

/**
 * Writes each score to Langfuse (`POST /api/public/scores`, Basic auth), attached to the trace
 * and to the agent-run observation (Langfuse ids are the OTel ids). Each score has a
 * deterministic `id`, so a retry after a lost answer or a replay overwrites instead of adding.
 * Failed scorings have no value to write and are counted as skipped.
 */
export function createLangfuseScoreSink(config: LangfuseScoreSinkConfig = {}): CountingSink {
  const url = (config.url ?? configDefaults.sinks.langfuseUrl).trim()
  const baseUrl = checkHttpUrl('sinks.langfuse.url', url).replace(/\/+$/, '')
  const { publicKey, secretKey } = config
  if (!publicKey) missingKey('sinks.langfuse.publicKey')
  if (!secretKey) missingKey('sinks.langfuse.secretKey')
  const scoresUrl = `${baseUrl}/api/public/scores`
  const headers = { authorization: `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString('base64')}` }
  const options = {
    environment: config.environment,
    passThreshold: config.passThreshold,
    dataTypes: config.dataTypes,
  }
  const timeoutMs = config.timeoutMs ?? configDefaults.sinks.timeoutMs
  return createCountingSink('langfuse', config, async (records, delivery) => {
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
        await postJson({ url: scoresUrl, body: score, headers, timeoutMs })
        pending.delete(score)
      }
    })
  })
}
