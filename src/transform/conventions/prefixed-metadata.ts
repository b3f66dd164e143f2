import type { Attributes } from '../../model/index.ts'
import { parseIfStructured, readPrefixed, setOwn } from '../read-attribute.ts'

/**
 * Copies the attributes under `prefix` into `out`, keyed without the prefix; JSON-looking
 * strings are parsed. Keys are set as own properties (a `__proto__` key is data, not a prototype).
 */
export function copyPrefixed(out: Record<string, unknown>, attributes: Attributes, prefix: string): void {
  for (const [key, value] of Object.entries(readPrefixed(attributes, prefix))) {
    setOwn(out, key, parseIfStructured(value))
  }
}

/** A run's metadata from the attributes under `prefixes` (a later prefix wins a key both have). */
export function prefixedMetadata(attributes: Attributes, ...prefixes: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const prefix of prefixes) copyPrefixed(out, attributes, prefix)
  return out
}
