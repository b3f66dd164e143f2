import { ConfigError } from '../config/config-error.ts'
import { configDefaults } from '../config/defaults.ts'
import { checkHttpUrl } from '../config/http-url.ts'
import { createCountingSink } from './counting-sink.ts'
import { postJson } from './http-json.ts'
import { createKeyedLock } from './keyed-lock.ts'
import {
  type LangfuseDataType,
  type LangfuseScoreRequest,
  toLangfuseScore,
  toLangfuseTraceScore,
} from './langfuse-score.ts'
import type { RetryOptions } from './retry-policy.ts'
import type { PassThreshold } from './score-attributes.ts'
import { hasValidTarget } from './score-target.ts'
import type { CountingSink } from './sink.ts'
import { type TraceRunScore, traceScoresOf } from './trace-score.ts'

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

/** How many (trace, scorer) run lists the Langfuse sink remembers to merge late runs into. */
const rememberedTraceScores = 10_000

/**
 * Writes each score to Langfuse (`POST /api/public/scores`, Basic auth), attached to the trace
 * and to the agent-run observation (Langfuse ids are the OTel ids), then one trace-level score
 * per scorer per trace (the run's score, or the mean and count of the trace's runs). Each score
 * has a deterministic `id`, so a retry after a lost answer or a replay overwrites instead of
 * adding. Langfuse's read API lags its writes, so the runs of a trace score are not read back:
 * the sink remembers the last {@link rememberedTraceScores} it wrote and merges a later
 * delivery's runs into them (a late agent run in a released trace). Failed scorings have no value
 * to write and are counted as skipped.
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
  const post = (body: unknown) => postJson({ url: scoresUrl, body, headers, timeoutMs })
  const traces = createKeyedLock()
  const known = new Map<string, readonly TraceRunScore[]>() // oldest first
  const remember = (key: string, runs: readonly TraceRunScore[]) => {
    known.delete(key)
    known.set(key, runs)
    if (known.size > rememberedTraceScores) known.delete(known.keys().next().value!)
  }
  return createCountingSink('langfuse', config, async (records, delivery) => {
    const targeted = records.filter(hasValidTarget)
    const scores = targeted.map((r) => toLangfuseScore(r, options)).filter((s) => s !== undefined)
    delivery.skip(records.length - scores.length)
    if (scores.length === 0) return
    // The API takes one score per request; a retry re-sends only those not yet acknowledged.
    const pending = new Set<LangfuseScoreRequest>(scores)
    const traceIds = [...new Set(targeted.map((r) => r.traceId.toLowerCase()))]
    const written = new Set<string>()
    await delivery.run(scores.length, async () => {
      for (const score of pending) {
        await post(score)
        pending.delete(score)
      }
      await traces.run(traceIds, async () => {
        const previous = (traceId: string, scorerId: string) => known.get(`${traceId}/${scorerId}`)
        for (const score of traceScoresOf(targeted, options.passThreshold, previous)) {
          const key = `${score.traceId}/${score.scorerId}`
          if (written.has(key)) continue
          const record = targeted.find(
            (r) => r.scorerId === score.scorerId && r.traceId.toLowerCase() === score.traceId,
          )!
          const request = toLangfuseTraceScore(score, record, options)
          if (request) await post(request)
          written.add(key)
          remember(key, score.runs)
        }
      })
    })
  })
}
