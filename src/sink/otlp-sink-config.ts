import type { Attributes } from '@opentelemetry/api'
import { ConfigError } from '../config/config-error.ts'
import { configDefaults } from '../config/defaults.ts'
import { checkHttpUrl } from '../config/http-url.ts'
import type { RetryOptions } from './retry-policy.ts'
import type { PassThreshold } from './score-attributes.ts'

/** OTLP/HTTP encodings the OTLP sink can send (gRPC is not supported). */
export type OtlpProtocol = 'http/protobuf' | 'http/json'

/**
 * Configuration of the OTLP score-span sink. The sink reads no environment: `resolveConfig` fills
 * unset fields from `OTEL_EXPORTER_OTLP_*` (src/config/env.ts); here unset fields take defaults.
 */
export interface OtlpSinkConfig extends RetryOptions {
  /** Full traces URL, e.g. `http://127.0.0.1:6006/v1/traces`. Default `http://localhost:4318/v1/traces`. */
  endpoint?: string
  /** `http/protobuf` (default; Phoenix accepts only this) or `http/json`. */
  protocol?: OtlpProtocol
  /** Extra request headers. */
  headers?: Record<string, string>
  /** Per-export timeout. Default 10 s. */
  timeoutMs?: number
  compression?: 'gzip' | 'none'
  /** Spans per export request; default 512. */
  maxBatchSize?: number
  /** Maps scores without a label to pass/fail. */
  passThreshold?: PassThreshold
  /** Added to the `service.name=tracescore` resource. */
  resourceAttributes?: Attributes
  /**
   * Where score spans are built, serialized and sent: `main` (default), the pipeline's thread;
   * `worker`, a worker thread beside it (bench/RESULTS.md §11 measures both).
   */
  exportThread?: OtlpExportThread
}

/** The thread the OTLP sink exports on. */
export type OtlpExportThread = 'worker' | 'main'

/** The OTLP sink settings after defaults are applied and validated. */
export interface ResolvedOtlpSinkConfig {
  endpoint: string
  protocol: OtlpProtocol
  headers: Record<string, string>
  timeoutMs: number
  compression: 'gzip' | 'none'
  exportThread: OtlpExportThread
}

/** The settings of the sink that `resolveOtlpSinkConfig` checks and completes. */
export type OtlpSetting = 'endpoint' | 'protocol' | 'timeoutMs' | 'compression'

/**
 * Applies the defaults (`http://localhost:4318/v1/traces`, `http/protobuf`, 10 s, no compression,
 * export on the caller's thread)
 * and validates. Throws a ConfigError naming where a bad value came from: `sources[key]` (an
 * environment variable, when the config was filled from one), else `sinks.otlp.<key>`.
 */
export function resolveOtlpSinkConfig(
  config: OtlpSinkConfig = {},
  sources: Partial<Record<OtlpSetting, string>> = {},
): ResolvedOtlpSinkConfig {
  const source = (key: OtlpSetting) => sources[key] ?? `sinks.otlp.${key}`
  const endpoint = checkHttpUrl(source('endpoint'), config.endpoint ?? configDefaults.sinks.otlpEndpoint)
  const protocol: unknown = config.protocol ?? 'http/protobuf'
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    invalid(
      source('protocol'),
      `expected http/protobuf or http/json (gRPC is not supported), got ${protocol}`,
    )
  }
  const timeout: unknown = config.timeoutMs ?? configDefaults.sinks.timeoutMs
  const timeoutMs = Number(timeout)
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    invalid(source('timeoutMs'), `expected milliseconds > 0, got ${timeout}`)
  }
  const compression: unknown = config.compression ?? 'none'
  if (compression !== 'gzip' && compression !== 'none') {
    invalid(source('compression'), `expected gzip or none, got ${compression}`)
  }
  const exportThread: unknown = config.exportThread ?? 'main'
  if (exportThread !== 'worker' && exportThread !== 'main') {
    invalid('sinks.otlp.exportThread', `expected worker or main, got ${exportThread}`)
  }
  return { endpoint, protocol, headers: { ...config.headers }, timeoutMs, compression, exportThread }
}

function invalid(key: string, problem: string): never {
  throw new ConfigError(`${key}: ${problem}`, [{ key, message: problem }])
}
