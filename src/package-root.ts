import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The package root (where package.json, config/ and scripts/ live), from src/ or dist/. */
export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..')
