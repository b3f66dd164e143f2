import type { Attributes } from '@opentelemetry/api'
import { ConfigError } from '../config/config-error.ts'
import { configDefaults } from '../config/defaults.ts'
import { checkHttpUrl } from '../config/http-url.ts'
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
 * gets `/v1/traces` appended), then defaults. Throws a ConfigError naming the config key or the
 * variable that supplied an invalid value.
 */
export function resolveOtlpSinkConfig(
  config: OtlpSinkConfig = {},
  env: Record<string, string | undefined> = config.env ?? process.env,
): ResolvedOtlpSinkConfig {
  const read = (key: string): Setting<string> | undefined => {
    for (const name of [`OTEL_EXPORTER_OTLP_TRACES_${key}`, `OTEL_EXPORTER_OTLP_${key}`]) {
      const value = env[name]?.trim()
      if (value) return { value, source: name }
    }
    return undefined
  }
  const pick = <T>(key: keyof OtlpSinkConfig, envKey: string): Setting<T | string> | undefined =>
    config[key] !== undefined ? { value: config[key] as T, source: `sinks.otlp.${key}` } : read(envKey)

  const endpoint = endpointSetting(config, env) ?? { value: defaultEndpoint, source: 'endpoint' }
  checkHttpUrl(endpoint.source, endpoint.value)

  const protocol = pick<OtlpProtocol>('protocol', 'PROTOCOL') ?? { value: 'http/protobuf', source: '' }
  if (protocol.value !== 'http/protobuf' && protocol.value !== 'http/json') {
    invalid(
      protocol.source,
      `expected http/protobuf or http/json (gRPC is not supported), got ${protocol.value}`,
    )
  }

  const timeout = pick<number>('timeoutMs', 'TIMEOUT') ?? {
    value: configDefaults.sinks.timeoutMs,
    source: '',
  }
  const timeoutMs = Number(timeout.value)
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    invalid(timeout.source, `expected milliseconds > 0, got ${timeout.value}`)
  }

  const compression = pick<string>('compression', 'COMPRESSION') ?? { value: 'none', source: '' }
  if (compression.value !== 'gzip' && compression.value !== 'none') {
    invalid(compression.source, `expected gzip or none, got ${compression.value}`)
  }

  const headers = {
    ...parseHeaders(env, 'OTEL_EXPORTER_OTLP_HEADERS'),
    ...parseHeaders(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    ...config.headers,
  }
  return {
    endpoint: endpoint.value,
    protocol: protocol.value as OtlpProtocol,
    headers,
    timeoutMs,
    compression: compression.value as 'gzip' | 'none',
  }
}

/** A value and where it came from (a config key or an environment variable). */
interface Setting<T> {
  value: T
  source: string
}

function invalid(key: string, problem: string): never {
  throw new ConfigError(`${key}: ${problem}`, [{ key, message: problem }])
}

function endpointSetting(
  config: OtlpSinkConfig,
  env: Record<string, string | undefined>,
): Setting<string> | undefined {
  if (config.endpoint !== undefined) return { value: config.endpoint, source: 'sinks.otlp.endpoint' }
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()
  if (specific) return { value: specific, source: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' }
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
  if (!base) return undefined
  return {
    value: `${base.endsWith('/') ? base : `${base}/`}v1/traces`,
    source: 'OTEL_EXPORTER_OTLP_ENDPOINT',
  }
}

/** Parses the W3C-baggage-like `key=value,key2=value2` header list of an OTLP variable. */
function parseHeaders(env: Record<string, string | undefined>, name: string): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const pair of env[name]?.split(',') ?? []) {
    const at = pair.indexOf('=')
    if (at <= 0) continue
    try {
      headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim())
    } catch {
      // The value is not shown: headers carry secrets.
      invalid(name, 'expected key=value pairs separated by commas, with %-escapes that decode')
    }
  }
  return headers
}
