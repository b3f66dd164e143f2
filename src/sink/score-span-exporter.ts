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
import { withDoubleScoresJson, withDoubleScoresProto } from './score-value-encoding.ts'

type TraceSerializer = ISerializer<ReadableSpan[], IExportTraceServiceResponse>

/** The OTel serializer of a protocol, with score values always written as doubles. */
function scoreSpanSerializer(protocol: ResolvedOtlpSinkConfig['protocol']): TraceSerializer {
  const [base, doubles] =
    protocol === 'http/json'
      ? [JsonTraceSerializer, withDoubleScoresJson]
      : [ProtobufTraceSerializer, withDoubleScoresProto]
  return {
    serializeRequest: (spans) => {
      const body = base.serializeRequest(spans)
      return body && doubles(body)
    },
    deserializeResponse: (data) => base.deserializeResponse(data),
  }
}

/**
 * The OTLP/HTTP exporter of score spans: the OTel JS exporter (its transport, retries, compression,
 * timeout and headers), assembled as `OTLPTraceExporter` assembles it but with
 * {@link scoreSpanSerializer}, since the stock serializers write whole numbers as ints.
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
