import { configDefaults } from '../config/defaults.ts'
import { checkHttpUrl } from '../config/http-url.ts'
import { createCountingSink, deliverTargetedBatches } from './counting-sink.ts'
import { HttpStatusError, postJson } from './http-json.ts'
import { createKeyedLock } from './keyed-lock.ts'
import { toPhoenixAnnotation, toPhoenixTraceAnnotation } from './phoenix-annotation.ts'
import { readPhoenixTraceRuns } from './phoenix-trace-runs.ts'
import type { RetryOptions } from './retry-policy.ts'
import type { PassThreshold } from './score-attributes.ts'
import type { CountingSink } from './sink.ts'
import { traceScoresOf } from './trace-score.ts'

/** Configuration of the Phoenix annotation sink (the `PHOENIX_*` variables are read by `resolveConfig`). */
export interface PhoenixAnnotationSinkConfig extends RetryOptions {
  /** Phoenix base URL; default `http://localhost:6006`. */
  url?: string
  /** Sent as `Authorization: Bearer`. */
  apiKey?: string
  headers?: Record<string, string>
  /** Per-request timeout; default 10 s. */
  timeoutMs?: number
  /** Span annotations per request, and score records per trace-annotation request; default 100. */
  batchSize?: number
  passThreshold?: PassThreshold
}

/**
 * Writes each score as a Phoenix span annotation on the agent-run span
 * (`POST /v1/span_annotations?sync=true`), then one trace annotation per scorer per trace
 * (`POST /v1/trace_annotations?sync=true`: the run's score, or the mean and count of the trace's
 * runs of that scorer), which Phoenix's trace list and its trace-annotation chart show.
 * `identifier` = scorer id makes both upserts, so retries and replays update rather than
 * duplicate; a trace annotation is merged with the runs it already records (read back first, one
 * trace at a time in this process), so a later delivery holding only a late run adds to the mean.
 * A 404 (the agent span or its trace is not ingested yet) is retried like a server error.
 */
export function createPhoenixAnnotationSink(config: PhoenixAnnotationSinkConfig = {}): CountingSink {
  const baseUrl = checkHttpUrl('sinks.phoenix.url', config.url ?? configDefaults.sinks.phoenixUrl).replace(
    /\/+$/,
    '',
  )
  const { apiKey, passThreshold } = config
  const headers = { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...config.headers }
  const timeoutMs = config.timeoutMs ?? configDefaults.sinks.timeoutMs
  const batchSize = config.batchSize ?? 100
  const graphql = { url: `${baseUrl}/graphql`, headers, timeoutMs }
  const post = async (path: string, data: unknown[]) => {
    const url = `${baseUrl}${path}?sync=true`
    try {
      await postJson({ url, body: { data }, headers, timeoutMs })
    } catch (error) {
      if (error instanceof HttpStatusError && error.status === 404) error.retryable = true
      throw error
    }
  }
  const traces = createKeyedLock()
  return createCountingSink('phoenix', config, (records, delivery) =>
    deliverTargetedBatches(
      records,
      batchSize,
      delivery,
      (batch) => {
        const spans = batch.map((r) => toPhoenixAnnotation(r, passThreshold))
        const traceIds = [...new Set(batch.map((r) => r.traceId.toLowerCase()))]
        let spansWritten = 0 // a retry does not re-send what Phoenix acknowledged
        return async () => {
          for (; spansWritten < spans.length; spansWritten += batchSize)
            await post('/v1/span_annotations', spans.slice(spansWritten, spansWritten + batchSize))
          await traces.run(traceIds, async () => {
            const previous = await readPhoenixTraceRuns(graphql, traceIds)
            await post(
              '/v1/trace_annotations',
              traceScoresOf(batch, passThreshold, previous).map(toPhoenixTraceAnnotation),
            )
          })
        }
      },
      { wholeTraces: true },
    ),
  )
}
