import { readFileSync } from 'node:fs'

/**
 * The version from tracescore's package.json, read once. The file sits two levels up from both
 * `src/sink/` and `dist/sink/`, so the same relative path works from sources and from the build.
 */
export const tracescoreVersion: string = readVersion()

function readVersion(): string {
  try {
    const raw = readFileSync(new URL('../../package.json', import.meta.url), 'utf8')
    const version = (JSON.parse(raw) as { version?: unknown }).version
    return typeof version === 'string' ? version : 'unknown'
  } catch {
    return 'unknown'
  }
}
