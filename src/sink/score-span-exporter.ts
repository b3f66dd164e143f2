import { ExportResultCode } from '@opentelemetry/core'
import { type CompressionAlgorithm, OTLPExporterBase } from '@opentelemetry/otlp-exporter-base'
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http'
import {
  type IExportTraceServiceResponse,
  type ISerializer,
  JsonTraceSerializer,
  ProtobufTraceSerializer,
  TraceExporterMetricsHelper,
} from '@opentelemetry/otlp-transformer'
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base'
import type { ResolvedOtlpSinkConfig } from './otlp-sink-config.ts'
import { serializeScoreSpanRequest } from './score-span-protobuf.ts'
import { withDoubleScoresJson } from './score-value-encoding.ts'

type TraceSerializer = ISerializer<ReadableSpan[], IExportTraceServiceResponse>

/**
 * The serializer of a protocol, with score values always written as doubles: for protobuf, our
 * own writer of the request body (the OTel serializer's bytes, doubles aside, at less than half
 * its cost); for JSON, the OTel serializer with its whole numbers rewritten.
 */
function scoreSpanSerializer(protocol: ResolvedOtlpSinkConfig['protocol']): TraceSerializer {
  if (protocol === 'http/json') {
    return {
      serializeRequest: (spans) => {
        const body = JsonTraceSerializer.serializeRequest(spans)
        return body && withDoubleScoresJson(body)
      },
      deserializeResponse: (data) => JsonTraceSerializer.deserializeResponse(data),
    }
  }
  return {
    serializeRequest: serializeScoreSpanRequest,
    deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
  }
}

/**
 * The OTLP/HTTP exporter of score spans: the OTel JS exporter (its transport, retries, compression,
 * timeout and headers), assembled as `OTLPTraceExporter` assembles it but with
 * {@link scoreSpanSerializer}, since the stock serializers write whole numbers as ints (and, for
 * protobuf, cost twice as much as writing the request directly).
 */
export function createScoreSpanExporter(config: ResolvedOtlpSinkConfig): SpanExporter {
  const contentType = config.protocol === 'http/json' ? 'application/json' : 'application/x-protobuf'
  const options = convertLegacyHttpOptions(
    {
      url: config.endpoint,
      headers: config.headers,
      timeoutMillis: config.timeoutMs,
      compression: config.compression as CompressionAlgorithm,
    },
    'TRACES',
    'v1/traces',
    { 'Content-Type': contentType },
  )
  return new OTLPExporterBase(
    createOtlpHttpExportDelegate(
      options,
      scoreSpanSerializer(config.protocol),
      'otlp_http_span_exporter',
      TraceExporterMetricsHelper,
      undefined,
    ),
  )
}

/** One export of `spans`: resolves when the backend answered 2xx, rejects with the exporter's error. */
export function exportSpans(exporter: SpanExporter, spans: ReadableSpan[]): Promise<void> {
  return new Promise((resolve, reject) => {
    exporter.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) resolve()
      else reject(result.error ?? new Error('OTLP export failed'))
    })
  })
}
