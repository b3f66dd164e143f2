export { ConfigError } from './config-error.ts'
export { defineConfig, loadConfig, resolveConfig } from './define-config.ts'
export type { RunFilter, ScorerEntry, TracescoreConfig, TracescoreConfigInput } from './schema.ts'
