import type { ScoreRecord } from '../model/index.ts'
import { createCountingSink, deliverTargetedBatches } from './counting-sink.ts'
import { type OtlpSinkConfig, resolveOtlpSinkConfig } from './otlp-sink-config.ts'
import {
  plainScoreRecord,
  type ScoreExportThreadOptions,
  startScoreExportThread,
} from './score-export-thread.ts'
import { scoreSpanResource, toScoreSpan } from './score-span.ts'
import { createScoreSpanExporter, exportSpans } from './score-span-exporter.ts'
import type { CountingSink } from './sink.ts'

/**
 * The default sink: each score becomes a span in the trace of the run it judges, exported over
 * OTLP/HTTP (protobuf or JSON). `deliver` resolves once the backend answered 2xx and rejects with
 * a `SinkDeliveryError` when the retry budget is spent. Span ids are deterministic, so a retry or
 * a replay re-sends the same spans rather than new ones. With `exportThread: 'worker'` the spans
 * are built and sent on a worker thread.
 */
export function createOtlpSink(config: OtlpSinkConfig = {}): CountingSink {
  return createOtlpSinkWith(config)
}

/** `createOtlpSink` with the export thread's test options. */
export function createOtlpSinkWith(
  config: OtlpSinkConfig,
  threadOptions?: ScoreExportThreadOptions,
): CountingSink {
  const settings = resolveOtlpSinkConfig(config)
  const { passThreshold, resourceAttributes } = config
  if (settings.exportThread === 'main') {
    const exporter = createScoreSpanExporter(settings)
    const resource = scoreSpanResource(resourceAttributes)
    return otlpSink(
      config,
      (batch) => {
        const spans = batch.map((record) => toScoreSpan(record, { resource, passThreshold }))
        return () => exportSpans(exporter, spans)
      },
      () => exporter.shutdown(),
    )
  }
  const thread = startScoreExportThread(
    { exporter: settings, passThreshold, resourceAttributes },
    threadOptions,
  )
  return otlpSink(
    config,
    (batch) => {
      const records = batch.map(plainScoreRecord)
      return () => thread.export(records)
    },
    () => thread.close(),
  )
}

/** The sink over the attempt of a batch (`attemptOf` is called once per batch, its attempt per try). */
function otlpSink(
  config: OtlpSinkConfig,
  attemptOf: (batch: ScoreRecord[]) => () => Promise<void>,
  release: () => Promise<void>,
): CountingSink {
  const maxBatchSize = config.maxBatchSize ?? 512
  return createCountingSink(
    'otlp',
    config,
    (records, delivery) =>
      deliverTargetedBatches(records, maxBatchSize, delivery, (batch) => {
        const attempt = attemptOf(batch)
        return () => attempt().catch((error: Error) => Promise.reject(explain(error)))
      }),
    release,
  )
}

/** Adds a hint to the error of an endpoint that refuses the encoding (Phoenix answers JSON with 415). */
function explain(error: Error): Error {
  if ((error as { code?: unknown }).code !== 415) return error
  const message = `${error.message || 'Unsupported Media Type'} (415): the endpoint refuses this OTLP encoding; Phoenix needs protocol http/protobuf`
  return Object.assign(new Error(message, { cause: error }), { code: 415 })
}
