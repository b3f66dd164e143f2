import { ExportResultCode } from '@opentelemetry/core'
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http'
import type { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base'
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs'
import { createCountingSink } from './counting-sink.ts'
import { toEvaluationLogRecord } from './evaluation-log-record.ts'
import { type OtlpSinkConfig, resolveOtlpSinkConfig } from './otlp-sink-config.ts'
import { scoreSpanResource } from './score-span.ts'
import { hasValidTarget } from './score-target.ts'
import type { CountingSink } from './sink.ts'

/** Settings of the evaluation log-record sink: the OTLP sink's, and where logs go. */
export interface OtlpLogSinkConfig extends OtlpSinkConfig {
  /** Full logs URL. Default: the traces endpoint with `/v1/traces` replaced by `/v1/logs`. */
  logsEndpoint?: string
  /** Told once when the backend turned out to take no logs (the sink is then off). */
  onNoLogs?: (status: number) => void
}

/**
 * HTTP answers that say the backend takes no OTLP/JSON logs (no such endpoint, no such method,
 * not this encoding), rather than that this request failed: no retry can ever deliver them.
 */
const NO_LOGS_STATUS = new Set([404, 405, 415, 501])

/**
 * The logs endpoint of an OTLP traces endpoint (`…/v1/traces` → `…/v1/logs`); other URLs are
 * kept as they are, which is then a logs endpoint only if `logsEndpoint` says so.
 */
export function logsEndpointOf(tracesEndpoint: string): string {
  return tracesEndpoint.replace(/\/v1\/traces\/?$/, '/v1/logs')
}

/**
 * Evaluation results as log-based events: each score becomes a `gen_ai.evaluation.result` log
 * record on the agent span it judges (`toEvaluationLogRecord`), exported with the OpenTelemetry
 * JS OTLP/HTTP logs exporter (OTLP/JSON) to the backend's `/v1/logs`, beside the score spans.
 * `deliver` resolves when the backend answered 2xx, under the same retries and delivery
 * acknowledgement as every sink (the pipeline commits offsets after it). A backend that answers
 * 404, 405, 415 or 501 takes no logs: that delivery counts as failed but is acknowledged, and
 * the sink turns itself off (later scores are skipped and counted) instead of holding offsets
 * for records it can never deliver.
 */
export function createOtlpLogSink(config: OtlpLogSinkConfig = {}): CountingSink {
  const settings = resolveOtlpSinkConfig(config)
  const exporter: LogRecordExporter = new OTLPLogExporter({
    url: config.logsEndpoint ?? logsEndpointOf(settings.endpoint),
    headers: settings.headers,
    timeoutMillis: settings.timeoutMs,
    compression: settings.compression as CompressionAlgorithm,
  })
  const resource = scoreSpanResource(config.resourceAttributes)
  let off = false
  return createCountingSink(
    'otlp-logs',
    config,
    async (records, delivery) => {
      const targeted = records.filter(hasValidTarget)
      delivery.skip(records.length - targeted.length)
      const size = config.maxBatchSize ?? 512
      for (let start = 0; start < targeted.length; start += size) {
        const batch = targeted.slice(start, start + size)
        if (off) {
          delivery.skip(batch.length)
          continue
        }
        const logs = batch.map((record) => toEvaluationLogRecord(record, resource, config.passThreshold))
        try {
          await delivery.run(batch.length, () => exportLogs(exporter, logs))
        } catch (error) {
          // Counted failed by the delivery; acknowledged, as no retry can ever deliver it.
          const status = ((error as Error).cause as { code?: unknown } | undefined)?.code
          if (typeof status !== 'number' || !NO_LOGS_STATUS.has(status)) throw error
          // Deliveries in flight together all learn it: told once.
          if (!off) config.onNoLogs?.(status)
          off = true
        }
      }
    },
    () => exporter.shutdown(),
  )
}

/** One export of `logs`: resolves when the backend answered 2xx, rejects with the exporter's error. */
function exportLogs(exporter: LogRecordExporter, logs: ReadableLogRecord[]): Promise<void> {
  return new Promise((resolve, reject) => {
    exporter.export(logs, (result) => {
      if (result.code === ExportResultCode.SUCCESS) resolve()
      else reject(result.error ?? new Error('OTLP logs export failed'))
    })
  })
}
