import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { packageRoot } from '../package-root.ts'

/** The version from tracescore's package.json (read once), stamped on every score the sinks write. */
export const tracescoreVersion: string = readVersion()

function readVersion(): string {
  try {
    const version = (
      JSON.parse(readFileSync(resolve(packageRoot, 'package.json'), 'utf8')) as { version?: unknown }
    ).version
    return typeof version === 'string' ? version : 'unknown'
  } catch {
    return 'unknown'
  }
}
