import type { Attributes } from '@opentelemetry/api'
import type { RetryOptions } from './retry-policy.ts'
import type { PassThreshold } from './score-attributes.ts'

/** OTLP/HTTP encodings the OTLP sink can send (gRPC is not supported). */
export type OtlpProtocol = 'http/protobuf' | 'http/json'

/** Configuration of the OTLP score-span sink; unset fields come from `OTEL_EXPORTER_OTLP_*`. */
export interface OtlpSinkConfig extends RetryOptions {
  /** Full traces URL, e.g. `http://127.0.0.1:6006/v1/traces`. */
  endpoint?: string
  /** `http/protobuf` (default; Phoenix accepts only this) or `http/json`. */
  protocol?: OtlpProtocol
  /** Extra request headers; they win over the ones from the environment. */
  headers?: Record<string, string>
  /** Per-export timeout. */
  timeoutMs?: number
  compression?: 'gzip' | 'none'
  /** Spans per export request; default 512. */
  maxBatchSize?: number
  /** Maps scores without a label to pass/fail. */
  passThreshold?: PassThreshold
  /** Added to the `service.name=tracescore` resource. */
  resourceAttributes?: Attributes
  /** Where `OTEL_EXPORTER_OTLP_*` are read from; `process.env` by default. */
  env?: Record<string, string | undefined>
}

/** The OTLP sink settings after config and environment are merged and validated. */
export interface ResolvedOtlpSinkConfig {
  endpoint: string
  protocol: OtlpProtocol
  headers: Record<string, string>
  timeoutMs: number
  compression: 'gzip' | 'none'
}

const defaultEndpoint = 'http://localhost:4318/v1/traces'

/**
 * Merges the config with the standard exporter variables, in the precedence the OTel spec
 * gives: config, then `OTEL_EXPORTER_OTLP_TRACES_*`, then `OTEL_EXPORTER_OTLP_*` (whose endpoint
 * gets `/v1/traces` appended), then defaults. Throws naming the key when a value is invalid.
 */
export function resolveOtlpSinkConfig(
  config: OtlpSinkConfig = {},
  env: Record<string, string | undefined> = config.env ?? process.env,
): ResolvedOtlpSinkConfig {
  const read = (key: string): string | undefined => {
    const value = env[`OTEL_EXPORTER_OTLP_TRACES_${key}`] ?? env[`OTEL_EXPORTER_OTLP_${key}`]
    return value?.trim() ? value.trim() : undefined
  }
  const endpoint = config.endpoint ?? envEndpoint(env) ?? defaultEndpoint
  checkUrl('endpoint', endpoint)

  const protocol = config.protocol ?? read('PROTOCOL') ?? 'http/protobuf'
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new Error(
      `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: expected http/protobuf or http/json, got ${protocol}`,
    )
  }

  const rawTimeout = read('TIMEOUT')
  const timeoutMs = config.timeoutMs ?? (rawTimeout === undefined ? 10_000 : Number(rawTimeout))
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new Error(
      `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: expected milliseconds > 0, got ${rawTimeout ?? timeoutMs}`,
    )
  }

  const compression = config.compression ?? read('COMPRESSION') ?? 'none'
  if (compression !== 'gzip' && compression !== 'none') {
    throw new Error(`OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: expected gzip or none, got ${compression}`)
  }

  const headers = {
    ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
    ...parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
    ...config.headers,
  }
  return { endpoint, protocol, headers, timeoutMs, compression }
}

function envEndpoint(env: Record<string, string | undefined>): string | undefined {
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()
  if (specific) return specific
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
  if (!base) return undefined
  return `${base.endsWith('/') ? base : `${base}/`}v1/traces`
}

function checkUrl(key: string, value: string): void {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new Error(`${key}: expected an http(s) URL, got ${value}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${key}: expected an http(s) URL, got ${value}`)
  }
}

/** Parses the W3C-baggage-like `key=value,key2=value2` header list of the OTLP variables. */
function parseHeaders(raw: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const pair of raw?.split(',') ?? []) {
    const at = pair.indexOf('=')
    if (at <= 0) continue
    headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim())
  }
  return headers
}
