import { pathToFileURL } from 'node:url'
import type { z } from 'zod'
import { ConfigError } from './config-error.ts'
import { applyEnvDefaults, applyEnvOverrides, ENV_OVERRIDES } from './env.ts'
import { readConfigInput } from './read-config-input.ts'
import { configSchema, type TracescoreConfig, type TracescoreConfigInput } from './schema.ts'

/** Identity helper that types a configuration module: `export default defineConfig({...})`. */
export function defineConfig(config: TracescoreConfigInput): TracescoreConfigInput {
  return config
}

/**
 * Validates a configuration (after applying environment overrides) and fills in defaults.
 * Throws a ConfigError naming every bad key and what it expects.
 */
export function resolveConfig(input: unknown, env: NodeJS.ProcessEnv = process.env): TracescoreConfig {
  if (typeof input !== 'object' || input === null) {
    throw new ConfigError('invalid configuration: expected an object (export default defineConfig({...}))')
  }
  const merged = applyEnvOverrides(readConfigInput(input), env)
  const parsed = configSchema.safeParse(merged)
  if (parsed.success) return applyEnvDefaults(parsed.data, env)
  const envByPath = new Map(Object.entries(ENV_OVERRIDES).map(([name, o]) => [o.path.join('.'), name]))
  const issues = withUnionBranches(parsed.error.issues).map((issue) => {
    const key = issue.path.map(String).join('.') || '(root)'
    const unknownKeys =
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((k) => `${key === '(root)' ? '' : `${key}.`}${k}`)
        : []
    const source = envByPath.has(key) && env[envByPath.get(key)!] ? ` (from ${envByPath.get(key)})` : ''
    const message = unknownKeys.length > 0 ? `unknown key ${unknownKeys.join(', ')}` : issue.message
    return { key, message: `${message}${source}` }
  })
  const lines = issues.map((i) => `  - ${i.key}: ${i.message}`)
  throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`, issues)
}

type Issue = z.core.$ZodIssue

/**
 * The issues of a union (`sinks.otlp`: `false` or an object) that only one branch explains, as
 * that branch's own issues under the union's path: `sinks.otlp.protocol: Invalid option...`
 * rather than `sinks.otlp: Invalid input`. A branch whose only issue is the value itself at the
 * union's path (`expected false`) is one the input did not mean.
 */
function withUnionBranches(issues: readonly Issue[]): Issue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union') return [issue]
    const meant = issue.errors.filter((branch) => !branch.every((i) => i.path.length === 0))
    if (meant.length !== 1) return [issue]
    return withUnionBranches(meant[0]!).map((i) => ({ ...i, path: [...issue.path, ...i.path] }))
  })
}

/** Imports a config module (TypeScript or JavaScript) and resolves it. */
export async function loadConfig(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TracescoreConfig> {
  let mod: { default?: unknown }
  try {
    mod = await import(pathToFileURL(file).href)
  } catch (error) {
    throw new ConfigError(`cannot load config file ${file}: ${(error as Error).message}`)
  }
  return resolveConfig(mod.default, env)
}
