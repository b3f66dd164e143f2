/**
 * The OTLP sink's export thread (started by `score-export-thread.ts`): builds the score spans of
 * the plain records it is sent, hashes their ids, serializes and POSTs them with the sink's
 * exporter (its transport, compression, headers, timeout), and answers each request by its id:
 * `{ id }` once the backend acknowledged, `{ id, failure }` otherwise. One attempt per request:
 * retries stay with the sink's policy on the pipeline's thread.
 */

import { parentPort, workerData } from 'node:worker_threads'
import type { Attributes } from '@opentelemetry/api'
import type { ScoreRecord } from '../model/index.ts'
import type { ResolvedOtlpSinkConfig } from './otlp-sink-config.ts'
import type { PassThreshold } from './score-attributes.ts'
import { scoreSpanResource, toScoreSpan } from './score-span.ts'
import { createScoreSpanExporter, exportSpans } from './score-span-exporter.ts'

/** What the thread is started with (`workerData`). */
export interface ExportThreadSettings {
  exporter: ResolvedOtlpSinkConfig
  passThreshold?: PassThreshold
  resourceAttributes?: Attributes
}

/** One export attempt of a batch of score records. */
export interface ExportRequest {
  id: number
  records: ScoreRecord[]
}

/** The exporter's error, as far as the sink's retry decision and messages read it. */
export interface ExportFailure {
  name: string
  message: string
  /** The HTTP status, or a network error's code (`ECONNREFUSED`). */
  code?: number | string
  /** The body of the backend's answer. */
  data?: string
}

/** The answer to one request. */
export interface ExportReply {
  id: number
  failure?: ExportFailure
}

const port = parentPort
if (!port) throw new Error('otlp-export-worker runs as a worker thread of the OTLP sink')
const settings = workerData as ExportThreadSettings
const exporter = createScoreSpanExporter(settings.exporter)
const resource = scoreSpanResource(settings.resourceAttributes)
const passThreshold = settings.passThreshold

port.on('message', ({ id, records }: ExportRequest) => {
  const reply = (failure?: ExportFailure) => port.postMessage(failure ? { id, failure } : { id })
  try {
    const spans = records.map((record) => toScoreSpan(record, { resource, passThreshold }))
    exportSpans(exporter, spans).then(
      () => reply(),
      (error: unknown) => reply(failureOf(error)),
    )
  } catch (error) {
    reply(failureOf(error))
  }
})

function failureOf(error: unknown): ExportFailure {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) }
  const { code, data } = error as { code?: unknown; data?: unknown }
  return {
    name: error.name,
    message: error.message,
    ...(typeof code === 'number' || typeof code === 'string' ? { code } : {}),
    ...(typeof data === 'string' ? { data } : {}),
  }
}
