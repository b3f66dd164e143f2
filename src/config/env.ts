import { type OtlpProtocol, type OtlpSetting, resolveOtlpSinkConfig } from '../sink/otlp-sink-config.ts'
import { ConfigError } from './config-error.ts'
import { configDefaults } from './defaults.ts'
import { checkHttpUrl } from './http-url.ts'
import type { TracescoreConfig } from './schema.ts'

/**
 * The one place that reads the environment: overrides of infrastructure settings merged over the
 * config file (`ENV_OVERRIDES`), then defaults of the sinks and judges (`applyEnvDefaults`).
 */
export const ENV_OVERRIDES: Record<string, { path: string[]; parse: (raw: string) => unknown }> = {
  KAFKA_BROKERS: {
    path: ['kafka', 'brokers'],
    parse: (raw) =>
      raw
        .split(',')
        .map((b) => b.trim())
        .filter(Boolean),
  },
  TRACESCORE_KAFKA_TOPIC: { path: ['kafka', 'topic'], parse: String },
  TRACESCORE_KAFKA_GROUP_ID: { path: ['kafka', 'groupId'], parse: String },
  TRACESCORE_KAFKA_ENCODING: { path: ['kafka', 'encoding'], parse: String },
  TRACESCORE_KAFKA_FROM_BEGINNING: { path: ['kafka', 'fromBeginning'], parse: parseFlag },
  TRACESCORE_KAFKA_REPARTITION: { path: ['kafka', 'repartition'], parse: parseFlag },
  TRACESCORE_KAFKA_LOGS_TOPIC: { path: ['kafka', 'logsTopic'], parse: String },
  TRACESCORE_KAFKA_SSL: { path: ['kafka', 'ssl'], parse: parseFlag },
  TRACESCORE_KAFKA_SASL_MECHANISM: { path: ['kafka', 'sasl', 'mechanism'], parse: String },
  TRACESCORE_KAFKA_SASL_USERNAME: { path: ['kafka', 'sasl', 'username'], parse: String },
  TRACESCORE_KAFKA_SASL_PASSWORD: { path: ['kafka', 'sasl', 'password'], parse: String },
  // Anything but true/1/false/0 is passed on as text (`auto` is valid), so the schema rejects the rest naming `ledger.enabled`.
  TRACESCORE_LEDGER_ENABLED: {
    path: ['ledger', 'enabled'],
    parse: (raw) => ({ true: true, '1': true, false: false, '0': false })[raw] ?? raw,
  },
  TRACESCORE_LEDGER_TOPIC: { path: ['ledger', 'topic'], parse: String },
  TRACESCORE_MAX_BUFFERED_BYTES: { path: ['assembly', 'maxBufferedBytes'], parse: Number },
  TRACESCORE_METRICS_PORT: { path: ['metrics', 'port'], parse: Number },
  TRACESCORE_METRICS_HOST: { path: ['metrics', 'host'], parse: String },
  TRACESCORE_LOG_LEVEL: { path: ['log', 'level'], parse: String },
}

/** A boolean variable: `true` or `1` is on, anything else off. */
function parseFlag(raw: string): boolean {
  return raw === 'true' || raw === '1'
}

/** Returns a copy of `config` with the environment overrides applied. */
export function applyEnvOverrides(
  config: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): Record<string, unknown> {
  const result: Record<string, unknown> = { ...config }
  for (const [name, { path, parse }] of Object.entries(ENV_OVERRIDES)) {
    const raw = env[name]
    if (raw === undefined || raw === '') continue
    let node = result
    for (const key of path.slice(0, -1)) {
      const child = node[key]
      node[key] = typeof child === 'object' && child !== null ? { ...(child as object) } : {}
      node = node[key] as Record<string, unknown>
    }
    node[path.at(-1)!] = parse(raw)
  }
  return result
}

/** Environment variables as given to `resolveConfig` (`process.env` by default). */
export type Environment = Readonly<Record<string, string | undefined>>

/**
 * The settings the configuration leaves unset, filled from the environment, so that sinks and
 * judges receive values and read no variable themselves: the OTLP sink from
 * `OTEL_EXPORTER_OTLP_*`, the Phoenix and Langfuse sinks from `PHOENIX_*` / `LANGFUSE_*`, the judge
 * providers from `<NAME>_API_KEY` / `<NAME>_BASE_URL`. Throws a ConfigError naming the key or
 * the variable that supplied a bad value.
 */
export function applyEnvDefaults(config: TracescoreConfig, env: Environment): TracescoreConfig {
  const { otlp, phoenix, langfuse } = config.sinks
  return {
    ...config,
    judges: { ...config.judges, providerEnv: { ...judgeProviderEnv(env), ...config.judges.providerEnv } },
    sinks: {
      ...config.sinks,
      otlp: otlp === false ? false : otlpFromEnv(otlp, env),
      ...(phoenix ? { phoenix: phoenixFromEnv(phoenix, env) } : {}),
      ...(langfuse ? { langfuse: langfuseFromEnv(langfuse, env) } : {}),
    },
  }
}

type Sinks = TracescoreConfig['sinks']

/**
 * OTLP settings in the precedence the OTel spec gives: config, then `OTEL_EXPORTER_OTLP_TRACES_*`,
 * then `OTEL_EXPORTER_OTLP_*` (whose endpoint gets `/v1/traces` appended), then defaults. Headers
 * merge: generic, then traces-specific, then the config's.
 */
export function otlpFromEnv(otlp: Exclude<Sinks['otlp'], false>, env: Environment) {
  const sources: Partial<Record<OtlpSetting, string>> = {}
  const pick = (key: OtlpSetting, suffix: string): string | number | undefined => {
    if (otlp[key] !== undefined) return otlp[key]
    for (const name of [`OTEL_EXPORTER_OTLP_TRACES_${suffix}`, `OTEL_EXPORTER_OTLP_${suffix}`]) {
      const value = env[name]?.trim()
      if (value) {
        sources[key] = name
        return value
      }
    }
    return undefined
  }
  const endpoint = otlp.endpoint ?? otlpEndpointFromEnv(env, sources)
  const merged = {
    endpoint,
    protocol: pick('protocol', 'PROTOCOL') as OtlpProtocol | undefined,
    timeoutMs: pick('timeoutMs', 'TIMEOUT') as number | undefined,
    compression: pick('compression', 'COMPRESSION') as 'gzip' | 'none' | undefined,
    exportThread: otlp.exportThread,
    headers: {
      ...parseHeaders(env, 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...parseHeaders(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
      ...otlp.headers,
    },
  }
  return { ...otlp, ...resolveOtlpSinkConfig(merged, sources) }
}

function otlpEndpointFromEnv(env: Environment, sources: Partial<Record<OtlpSetting, string>>) {
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()
  if (specific) {
    sources.endpoint = 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
    return specific
  }
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
  if (!base) return undefined
  sources.endpoint = 'OTEL_EXPORTER_OTLP_ENDPOINT'
  return `${base.endsWith('/') ? base : `${base}/`}v1/traces`
}

/** Parses the W3C-baggage-like `key=value,key2=value2` header list of an OTLP variable. */
function parseHeaders(env: Environment, name: string): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const pair of env[name]?.split(',') ?? []) {
    const at = pair.indexOf('=')
    if (at <= 0) continue
    try {
      headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim())
    } catch {
      // The value is not shown: headers carry secrets.
      const message = 'expected key=value pairs separated by commas, with %-escapes that decode'
      throw new ConfigError(`${name}: ${message}`, [{ key: name, message }])
    }
  }
  return headers
}

/** Phoenix: `url` else `PHOENIX_HOST` when it is a URL, else the local default; `apiKey` else `PHOENIX_API_KEY`. */
export function phoenixFromEnv(phoenix: NonNullable<Sinks['phoenix']>, env: Environment) {
  const host = env.PHOENIX_HOST?.startsWith('http') ? env.PHOENIX_HOST : undefined
  const url = checkHttpUrl(
    phoenix.url !== undefined ? 'sinks.phoenix.url' : 'PHOENIX_HOST',
    phoenix.url ?? host ?? configDefaults.sinks.phoenixUrl,
  )
  const apiKey = phoenix.apiKey ?? env.PHOENIX_API_KEY
  return { ...phoenix, url, ...(apiKey ? { apiKey } : {}) }
}

/**
 * Langfuse: `url` else `LANGFUSE_BASE_URL`, `LANGFUSE_HOST`, then Langfuse Cloud; the keys else
 * `LANGFUSE_PUBLIC_KEY` / `LANGFUSE_SECRET_KEY` (required); `environment` else
 * `LANGFUSE_TRACING_ENVIRONMENT`.
 */
export function langfuseFromEnv(langfuse: NonNullable<Sinks['langfuse']>, env: Environment) {
  const urlKey =
    langfuse.url !== undefined
      ? 'sinks.langfuse.url'
      : env.LANGFUSE_BASE_URL
        ? 'LANGFUSE_BASE_URL'
        : 'LANGFUSE_HOST'
  const rawUrl =
    langfuse.url ?? env.LANGFUSE_BASE_URL ?? env.LANGFUSE_HOST ?? configDefaults.sinks.langfuseUrl
  const key = (name: 'publicKey' | 'secretKey', variable: string) => {
    const value = langfuse[name] ?? env[variable]
    if (value) return value
    const message = `expected a key (or ${variable}), got nothing`
    throw new ConfigError(`sinks.langfuse.${name}: ${message}`, [{ key: `sinks.langfuse.${name}`, message }])
  }
  const environment = langfuse.environment ?? env.LANGFUSE_TRACING_ENVIRONMENT
  return {
    ...langfuse,
    url: checkHttpUrl(urlKey, rawUrl.trim()),
    publicKey: key('publicKey', 'LANGFUSE_PUBLIC_KEY'),
    secretKey: key('secretKey', 'LANGFUSE_SECRET_KEY'),
    ...(environment ? { environment } : {}),
  }
}

/**
 * The variables judge providers are configured by (`OPENAI_API_KEY`, `ANTHROPIC_BASE_URL`,
 * `<NAME>_BASE_URL` of an OpenAI-compatible endpoint...), for `createEnvJudgeModelResolver`.
 */
export function judgeProviderEnv(env: Environment = process.env): Record<string, string> {
  const picked: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && /^[A-Z0-9_]+_(API_KEY|BASE_URL)$/.test(name)) picked[name] = value
  }
  return picked
}

/** Where the demo looks for Phoenix: `PHOENIX_URL`, else the local one. */
export function demoPhoenixUrl(env: Environment = process.env): string {
  return env.PHOENIX_URL ?? 'http://127.0.0.1:6006'
}

/** True when the environment asks for debug logs (`TRACESCORE_LOG_LEVEL=debug`), before any config is read. */
export function debugFromEnv(env: Environment = process.env): boolean {
  return env.TRACESCORE_LOG_LEVEL === 'debug'
}
