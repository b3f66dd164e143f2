import { configDefaults } from '../config/defaults.ts'
import { checkHttpUrl } from '../config/http-url.ts'
import { createCountingSink, deliverTargetedBatches } from './counting-sink.ts'
import { HttpStatusError, postJson } from './http-json.ts'
import { toPhoenixAnnotation } from './phoenix-annotation.ts'
import type { RetryOptions } from './retry-policy.ts'
import type { PassThreshold } from './score-attributes.ts'
import type { CountingSink } from './sink.ts'

/** Configuration of the Phoenix span-annotation sink (the `PHOENIX_*` variables are read by `resolveConfig`). */
export interface PhoenixAnnotationSinkConfig extends RetryOptions {
  /** Phoenix base URL; default `http://localhost:6006`. */
  url?: string
  /** Sent as `Authorization: Bearer`. */
  apiKey?: string
  headers?: Record<string, string>
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number
  /** Annotations per request; default 100. */
  batchSize?: number
  passThreshold?: PassThreshold
}

/**
 * Writes each score as a Phoenix span annotation on the agent-run span
 * (`POST /v1/span_annotations?sync=true`). `identifier` = scorer id makes it an upsert, so
 * retries and replays update rather than duplicate. A 404 (the agent span is not ingested yet)
 * is retried like a server error.
 */
export function createPhoenixAnnotationSink(config: PhoenixAnnotationSinkConfig = {}): CountingSink {
  const baseUrl = checkHttpUrl('sinks.phoenix.url', config.url ?? configDefaults.sinks.phoenixUrl).replace(
    /\/+$/,
    '',
  )
  const url = `${baseUrl}/v1/span_annotations?sync=true`
  const { apiKey } = config
  const headers = { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...config.headers }
  const timeoutMs = config.timeoutMs ?? configDefaults.sinks.timeoutMs
  const batchSize = config.batchSize ?? 100
  return createCountingSink('phoenix', config, (records, delivery) =>
    deliverTargetedBatches(records, batchSize, delivery, (batch) => {
      const data = batch.map((r) => toPhoenixAnnotation(r, config.passThreshold))
      return async () => {
        try {
          await postJson({ url, body: { data }, headers, timeoutMs })
        } catch (error) {
          if (error instanceof HttpStatusError && error.status === 404) error.retryable = true
          throw error
        }
      }
    }),
  )
}
