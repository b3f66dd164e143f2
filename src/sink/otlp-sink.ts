import { ExportResultCode } from '@opentelemetry/core'
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base'
import { createCountingSink, deliverTargetedBatches } from './counting-sink.ts'
import type { ResolvedOtlpSinkConfig } from './otlp-sink-config.ts'
import { type OtlpSinkConfig, resolveOtlpSinkConfig } from './otlp-sink-config.ts'
import type { RetryOptions } from './retry-policy.ts'
import { scoreSpanResource, toScoreSpan } from './score-span.ts'
import { createScoreSpanExporter } from './score-span-exporter.ts'
import type { CountingSink } from './sink.ts'

/**
 * The default sink: each score becomes a span in the trace of the run it judges, exported over
 * OTLP/HTTP (protobuf or JSON). `deliver` resolves once the backend answered 2xx and rejects with
 * a `SinkDeliveryError` when the retry budget is spent. Span ids are deterministic, so a retry or
 * a replay re-sends the same spans rather than new ones.
 */
export function createOtlpSink(config: OtlpSinkConfig = {}): CountingSink {
  return createOtlpSinkWithExporter(config, createOtlpExporter(resolveOtlpSinkConfig(config)))
}

/** The OTLP sink over a given exporter (any `SpanExporter`, e.g. an in-memory one). */
function createOtlpSinkWithExporter(
  config: Pick<OtlpSinkConfig, 'passThreshold' | 'resourceAttributes' | 'maxBatchSize'> & RetryOptions,
  exporter: SpanExporter,
): CountingSink {
  const maxBatchSize = config.maxBatchSize ?? 512
  const resource = scoreSpanResource(config.resourceAttributes)
  return createCountingSink(
    'otlp',
    config,
    (records, delivery) =>
      deliverTargetedBatches(records, maxBatchSize, delivery, (batch) => {
        const spans = batch.map((record) =>
          toScoreSpan(record, { resource, passThreshold: config.passThreshold }),
        )
        return () => exportSpans(exporter, spans)
      }),
    () => exporter.shutdown(),
  )
}

/** The OTLP/HTTP exporter for a resolved config: JSON or protobuf by protocol, score values as doubles. */
function createOtlpExporter(config: ResolvedOtlpSinkConfig): SpanExporter {
  return createScoreSpanExporter(config)
}

function exportSpans(exporter: SpanExporter, spans: ReadableSpan[]): Promise<void> {
  return new Promise((resolve, reject) => {
    exporter.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) resolve()
      else reject(explain(result.error ?? new Error('OTLP export failed')))
    })
  })
}

/** Adds a hint to the error of an endpoint that refuses the encoding (Phoenix answers JSON with 415). */
function explain(error: Error): Error {
  if ((error as { code?: unknown }).code !== 415) return error
  const message = `${error.message || 'Unsupported Media Type'} (415): the endpoint refuses this OTLP encoding; Phoenix needs protocol http/protobuf`
  return Object.assign(new Error(message, { cause: error }), { code: 415 })
}
