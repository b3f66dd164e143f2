/**
 * Environment overrides for infrastructure settings, merged over the config file in one place.
 * The OTLP exporter reads the standard `OTEL_EXPORTER_OTLP_*` variables itself.
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
  TRACESCORE_KAFKA_FROM_BEGINNING: {
    path: ['kafka', 'fromBeginning'],
    parse: (raw) => raw === 'true' || raw === '1',
  },
  TRACESCORE_METRICS_PORT: { path: ['metrics', 'port'], parse: Number },
  TRACESCORE_METRICS_HOST: { path: ['metrics', 'host'], parse: String },
  TRACESCORE_LOG_LEVEL: { path: ['log', 'level'], parse: String },
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
