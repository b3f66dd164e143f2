import { describe, expect, it } from 'vitest'
import { resolveOtlpSinkConfig } from './otlp-sink-config.ts'

describe('resolveOtlpSinkConfig', () => {
  it('defaults to OTLP/HTTP protobuf on localhost:4318', () => {
    expect(resolveOtlpSinkConfig({}, {})).toEqual({
      endpoint: 'http://localhost:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      timeoutMs: 10_000,
      compression: 'none',
    })
  })

  it('appends /v1/traces to the generic endpoint but takes the traces endpoint as it is', () => {
    expect(resolveOtlpSinkConfig({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://phoenix:6006' }).endpoint).toBe(
      'http://phoenix:6006/v1/traces',
    )
    expect(
      resolveOtlpSinkConfig(
        {},
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://phoenix:6006',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/custom',
        },
      ).endpoint,
    ).toBe('http://collector:4318/custom')
  })

  it('prefers config over signal-specific over generic variables', () => {
    const env = {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TIMEOUT: '3000',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '4000',
      OTEL_EXPORTER_OTLP_HEADERS: 'a=generic,b=generic',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'b=traces,c=traces',
    }
    const resolved = resolveOtlpSinkConfig({ headers: { c: 'config' } }, env)
    expect(resolved.protocol).toBe('http/json')
    expect(resolved.timeoutMs).toBe(4000)
    expect(resolved.headers).toEqual({ a: 'generic', b: 'traces', c: 'config' })
    expect(resolveOtlpSinkConfig({ protocol: 'http/protobuf', timeoutMs: 50 }, env)).toMatchObject({
      protocol: 'http/protobuf',
      timeoutMs: 50,
    })
  })

  it('rejects gRPC, bad timeouts, unknown compression and non-http endpoints, naming the key', () => {
    expect(() => resolveOtlpSinkConfig({}, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/PROTOCOL.*grpc/)
    expect(() => resolveOtlpSinkConfig({}, { OTEL_EXPORTER_OTLP_TIMEOUT: 'soon' })).toThrow(/TIMEOUT/)
    expect(() => resolveOtlpSinkConfig({}, { OTEL_EXPORTER_OTLP_COMPRESSION: 'zstd' })).toThrow(/COMPRESSION/)
    expect(() => resolveOtlpSinkConfig({ endpoint: 'phoenix:6006' }, {})).toThrow(/endpoint/)
  })
})
