import { describe, expect, it } from 'vitest'
import { ConfigError } from '../config/config-error.ts'
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

describe('resolveOtlpSinkConfig errors', () => {
  it('are configuration errors naming the variable that supplied the value', () => {
    const error = (() => {
      try {
        resolveOtlpSinkConfig({}, { OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'zstd' })
      } catch (caught) {
        return caught
      }
    })()
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).message).toBe(
      'OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: expected gzip or none, got zstd',
    )
    expect(() => resolveOtlpSinkConfig({ protocol: 'grpc' as never }, {})).toThrow(/^sinks\.otlp\.protocol: /)
  })

  it('rejects an endpoint with a user name or password without showing the password', () => {
    for (const [config, env, key] of [
      [{ endpoint: 'https://user:hunter2@collector:4318/v1/traces' }, {}, 'sinks.otlp.endpoint'],
      [
        {},
        { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://user:hunter2@collector:4318/v1/traces' },
        'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
      ],
      [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://hunter2@collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    ] as const) {
      let message = ''
      try {
        resolveOtlpSinkConfig(config, env)
      } catch (caught) {
        message = (caught as Error).message
      }
      expect(message).toMatch(new RegExp(`^${key}: a user name or password in the URL is not accepted`))
      expect(message).toContain('***@collector:4318')
      expect(message).not.toContain('hunter2')
    }
  })
})
