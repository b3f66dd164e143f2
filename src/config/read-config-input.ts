import { ConfigError } from './config-error.ts'

/**
 * Copies a configuration as its module exported it into plain data, reading every property
 * once: a getter (or proxy) that throws becomes a ConfigError naming its key, instead of an
 * unexpected error later in validation. Scorers, functions and class instances are kept as they
 * are (their own code decides what reading them does); plain objects and arrays are copied.
 */
export function readConfigInput(input: object): Record<string, unknown> {
  const root: Record<string, unknown> = {}
  const pending: [source: object, target: Record<string, unknown> | unknown[], path: string][] = [
    [input, root, ''],
  ]
  while (pending.length > 0) {
    const [source, target, path] = pending.pop()!
    const keys = attempt(path || '(root)', () => Object.keys(source))
    for (const key of keys) {
      const keyPath = path ? `${path}.${key}` : key
      const value = attempt(keyPath, () => (source as Record<string, unknown>)[key])
      const copy = key === 'scorer' || !isPlain(value) ? value : Array.isArray(value) ? [] : {}
      if (copy !== value) pending.push([value as object, copy as Record<string, unknown>, keyPath])
      Object.defineProperty(target, key, {
        value: copy,
        enumerable: true,
        writable: true,
        configurable: true,
      })
    }
  }
  return root
}

function isPlain(value: unknown): value is object {
  if (Array.isArray(value)) return true
  if (value === null || typeof value !== 'object') return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

function attempt<T>(key: string, read: () => T): T {
  try {
    return read()
  } catch (error) {
    const message = `reading this value threw: ${error instanceof Error ? error.message : String(error)}`
    throw new ConfigError(`invalid configuration:\n  - ${key}: ${message}`, [{ key, message }])
  }
}
