import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ConfigError } from './config-error.ts'
import { resolveConfig } from './define-config.ts'
import { debugFromEnv, demoPhoenixUrl, langfuseFromEnv, otlpFromEnv, phoenixFromEnv } from './env.ts'

describe('otlpFromEnv', () => {
  it('defaults to OTLP/HTTP protobuf on localhost:4318', () => {
    expect(otlpFromEnv({}, {})).toEqual({
      endpoint: 'http://localhost:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      timeoutMs: 10_000,
      compression: 'none',
      exportThread: 'main',
    })
  })

  it('appends /v1/traces to the generic endpoint but takes the traces endpoint as it is', () => {
    expect(otlpFromEnv({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://phoenix:6006' }).endpoint).toBe(
      'http://phoenix:6006/v1/traces',
    )
    expect(
      otlpFromEnv(
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
    const resolved = otlpFromEnv({ headers: { c: 'config' } }, env)
    expect(resolved.protocol).toBe('http/json')
    expect(resolved.timeoutMs).toBe(4000)
    expect(resolved.headers).toEqual({ a: 'generic', b: 'traces', c: 'config' })
    expect(otlpFromEnv({ protocol: 'http/protobuf', timeoutMs: 50 }, env)).toMatchObject({
      protocol: 'http/protobuf',
      timeoutMs: 50,
    })
  })

  it('rejects gRPC, bad timeouts, unknown compression and non-http endpoints, naming the key', () => {
    expect(() => otlpFromEnv({}, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/PROTOCOL.*grpc/)
    expect(() => otlpFromEnv({}, { OTEL_EXPORTER_OTLP_TIMEOUT: 'soon' })).toThrow(/TIMEOUT/)
    expect(() => otlpFromEnv({}, { OTEL_EXPORTER_OTLP_COMPRESSION: 'zstd' })).toThrow(/COMPRESSION/)
    expect(() => otlpFromEnv({ endpoint: 'phoenix:6006' }, {})).toThrow(/endpoint/)
  })
})

describe('otlpFromEnv errors', () => {
  it('are configuration errors naming the variable that supplied the value', () => {
    const error = (() => {
      try {
        otlpFromEnv({}, { OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'zstd' })
      } catch (caught) {
        return caught
      }
    })()
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).message).toBe(
      'OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: expected gzip or none, got zstd',
    )
    expect(() => otlpFromEnv({ protocol: 'grpc' as never }, {})).toThrow(/^sinks\.otlp\.protocol: /)
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
        otlpFromEnv(config, env)
      } catch (caught) {
        message = (caught as Error).message
      }
      expect(message).toMatch(new RegExp(`^${key}: a user name or password in the URL is not accepted`))
      expect(message).toContain('***@collector:4318')
      expect(message).not.toContain('hunter2')
    }
  })
})

describe('resolveConfig reads the environment for the sinks and judges', () => {
  it('fills the OTLP sink from OTEL_EXPORTER_OTLP_*, the config winning', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://phoenix:6006', OTEL_EXPORTER_OTLP_HEADERS: 'k=v' }
    expect(resolveConfig({}, env).sinks.otlp).toEqual({
      endpoint: 'http://phoenix:6006/v1/traces',
      protocol: 'http/protobuf',
      headers: { k: 'v' },
      timeoutMs: 10_000,
      compression: 'none',
      exportThread: 'main',
    })
    const configured = resolveConfig(
      { sinks: { otlp: { endpoint: 'http://c:4318/x', passThreshold: 0.5 } } },
      env,
    )
    expect(configured.sinks.otlp).toMatchObject({ endpoint: 'http://c:4318/x', passThreshold: 0.5 })
    expect(
      resolveConfig({ sinks: { otlp: false } }, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).sinks.otlp,
    ).toBe(false)
  })

  it('rejects a bad OTEL variable as a configuration error naming it (exit code 2)', () => {
    const error = (() => {
      try {
        resolveConfig({}, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })
      } catch (caught) {
        return caught as ConfigError
      }
    })()
    expect(error).toBeInstanceOf(ConfigError)
    expect(error?.exitCode).toBe(2)
    expect(error?.message).toMatch(/^OTEL_EXPORTER_OTLP_PROTOCOL: .*grpc/)
  })

  it('fills Phoenix from PHOENIX_HOST (only when a URL) and PHOENIX_API_KEY', () => {
    const env = { PHOENIX_HOST: 'http://phoenix:6006', PHOENIX_API_KEY: 'px' }
    expect(resolveConfig({ sinks: { phoenix: {} } }, env).sinks.phoenix).toEqual({
      url: 'http://phoenix:6006',
      apiKey: 'px',
    })
    expect(phoenixFromEnv({}, { PHOENIX_HOST: 'phoenix' })).toEqual({ url: 'http://localhost:6006' })
    expect(phoenixFromEnv({ url: 'http://mine:1', apiKey: 'a' }, env)).toEqual({
      url: 'http://mine:1',
      apiKey: 'a',
    })
  })

  it('fills Langfuse from LANGFUSE_BASE_URL, else LANGFUSE_HOST, the keys and the tracing environment', () => {
    const keys = { LANGFUSE_PUBLIC_KEY: 'pk', LANGFUSE_SECRET_KEY: 'sk' }
    const env = { ...keys, LANGFUSE_HOST: 'http://host:3000', LANGFUSE_TRACING_ENVIRONMENT: 'prod' }
    expect(resolveConfig({ sinks: { langfuse: {} } }, env).sinks.langfuse).toEqual({
      url: 'http://host:3000',
      publicKey: 'pk',
      secretKey: 'sk',
      environment: 'prod',
    })
    expect(langfuseFromEnv({}, { ...env, LANGFUSE_BASE_URL: 'http://base:3000' }).url).toBe(
      'http://base:3000',
    )
    expect(langfuseFromEnv({}, keys).url).toBe('https://cloud.langfuse.com')
    expect(langfuseFromEnv({ publicKey: 'mine', url: 'http://u:1' }, env)).toMatchObject({
      publicKey: 'mine',
      secretKey: 'sk',
      url: 'http://u:1',
    })
    expect(() => resolveConfig({ sinks: { langfuse: {} } }, {})).toThrow(/sinks\.langfuse\.publicKey/)
  })

  it('hands the judge providers their variables, config entries winning', () => {
    const env = { OPENAI_API_KEY: 'k', VLLM_BASE_URL: 'http://v:8000/v1', HOME: '/root', PATH: '/bin' }
    expect(resolveConfig({}, env).judges.providerEnv).toEqual({
      OPENAI_API_KEY: 'k',
      VLLM_BASE_URL: 'http://v:8000/v1',
    })
    expect(
      resolveConfig({ judges: { providerEnv: { OPENAI_API_KEY: 'mine' } } }, env).judges.providerEnv
        .OPENAI_API_KEY,
    ).toBe('mine')
  })

  it('reads the demo Phoenix URL and the debug level', () => {
    expect(demoPhoenixUrl({})).toBe('http://127.0.0.1:6006')
    expect(demoPhoenixUrl({ PHOENIX_URL: 'http://p:1' })).toBe('http://p:1')
    expect(debugFromEnv({ TRACESCORE_LOG_LEVEL: 'debug' })).toBe(true)
    expect(debugFromEnv({ TRACESCORE_LOG_LEVEL: 'info' })).toBe(false)
  })

  it('is the only module of src/ that reads process.env (besides entry points handing it over)', () => {
    const root = fileURLToPath(new URL('..', import.meta.url))
    const readers = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.includes('testing'))
      .filter((file) => /process\.env\b(?!\s*[,)}])/.test(readFileSync(join(root, file), 'utf8')))
    expect(readers.sort()).toEqual(['cli.ts', 'config/env.ts'])
  })
})

describe('score ledger overrides', () => {
  it('TRACESCORE_LEDGER_ENABLED and TRACESCORE_LEDGER_TOPIC override the file; a bad value names the key', () => {
    const on = resolveConfig({ ledger: { enabled: false } }, { TRACESCORE_LEDGER_ENABLED: '1' })
    expect(on.ledger.enabled).toBe(true)
    expect(
      resolveConfig({ ledger: { enabled: true } }, { TRACESCORE_LEDGER_ENABLED: 'false' }).ledger.enabled,
    ).toBe(false)
    expect(resolveConfig({}, { TRACESCORE_LEDGER_TOPIC: 'scores_seen' }).ledger.topic).toBe('scores_seen')
    expect(
      resolveConfig({ ledger: { enabled: false } }, { TRACESCORE_LEDGER_ENABLED: 'auto' }).ledger.enabled,
    ).toBe('auto')
    expect(() => resolveConfig({}, { TRACESCORE_LEDGER_ENABLED: 'yes' })).toThrow(ConfigError)
    expect(() => resolveConfig({}, { TRACESCORE_LEDGER_ENABLED: 'yes' })).toThrow(/ledger\.enabled/)
    expect(() => resolveConfig({ ledger: { onUnavailable: 'ignore' as never } }, {})).toThrow(
      /ledger\.onUnavailable/,
    )
    expect(() => resolveConfig({ ledger: { retentionMs: 0 } }, {})).toThrow(/ledger\.retentionMs/)
  })
})
