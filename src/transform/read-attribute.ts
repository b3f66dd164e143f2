import { plainAttributes } from '../ingest/decode/lazy-attributes.ts'
import type { Attributes, AttributeValue } from '../model/index.ts'
import type { Notes } from './notes.ts'

/** Enumerating attributes (`for…in`, `Object.keys`): see {@link plainAttributes}. */
export { plainAttributes }

/**
 * The attribute `key` of a span, or undefined when it has none. Own keys only: an attribute named
 * like an inherited property (`constructor`, `toString`) must not count as present. One read
 * answers for every primitive value (what `Object.prototype` holds is functions and objects);
 * only an object value is asked again whether it is the span's own. Undefined is never an
 * attribute's value (`AttributeValue`).
 */
export function ownAttribute(attributes: Attributes, key: string): AttributeValue | undefined {
  const value = attributes[key]
  if (typeof value !== 'object' && typeof value !== 'function') return value
  return Object.hasOwn(attributes, key) ? value : undefined
}

/** Whether a span records an attribute (see {@link ownAttribute}). */
export function hasAttribute(attributes: Attributes, key: string): boolean {
  return ownAttribute(attributes, key) !== undefined
}

/**
 * Sets `target[key]` as an own property. Plain assignment of the key `__proto__` (a key any
 * producer can write) would replace the object's prototype instead.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** An attribute as a string (numbers and booleans converted); undefined when absent, empty or structured. */
export function readString(attributes: Attributes, key: string): string | undefined {
  const value = ownAttribute(attributes, key)
  if (typeof value === 'string') return value.length > 0 ? value : undefined
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

/** A JSON-ish attribute (`gen_ai.input.messages`, tool arguments...): structured values as they are, strings parsed. */
export function readJson(attributes: Attributes, key: string, notes: Notes, spanId: string): unknown {
  const value = ownAttribute(attributes, key)
  if (value === undefined) return undefined
  return parseJsonValue(value, { notes, what: `${key} of span ${spanId}` })
}

/**
 * Turns an attribute value into a JS value: strings that hold JSON are parsed; a string that
 * looks like JSON but does not parse (truncated by an exporter limit) is noted and returned raw.
 */
export function parseJsonValue(
  value: AttributeValue | undefined,
  context?: { notes: Notes; what: string },
): unknown {
  if (value === undefined || value === null) return undefined
  if (value instanceof Uint8Array) return value
  if (typeof value !== 'string') return value
  const trimmed = value.trim()
  const first = trimmed[0]
  const looksStructured = first === '{' || first === '['
  // Only asked when the text does not look structured (most values here do).
  const looksScalar =
    !looksStructured && (first === '"' || /^(?:-?\d[\d.eE+-]*|true|false|null)$/.test(trimmed))
  if (!looksStructured && !looksScalar) return value
  try {
    return JSON.parse(trimmed)
  } catch {
    if (looksStructured && context) context.notes.add(`${context.what} is not valid JSON (truncated?)`)
    return value
  }
}

/** Attributes under `prefix.` with the prefix removed, e.g. `ai.telemetry.metadata.userId` → `userId`. */
export function readPrefixed(attributes: Attributes, prefix: string): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {}
  const start = `${prefix}.`
  // Keys, not entries: most keys are not under the prefix, and an entry is an array each.
  for (const key of Object.keys(plainAttributes(attributes))) {
    if (key.startsWith(start) && key.length > start.length)
      setOwn(out, key.slice(start.length), attributes[key])
  }
  return out
}

/** Whether a value is a plain object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  )
}

/** Parses a string only when it holds a JSON object or array; any other value is returned as it is. */
export function parseIfStructured(value: AttributeValue | undefined): unknown {
  if (typeof value !== 'string') return value
  const first = value.trimStart()[0]
  if (first !== '{' && first !== '[') return value
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

/**
 * Groups flattened `prefix.<i>.rest` keys by index, in index order (`<i>` decimal digits). Asked
 * of every OpenInference model call's messages (a hundred keys and more): the index is read off the
 * key's characters, with no string made for it.
 */
export function indexed(attributes: Attributes, prefix: string): Map<number, Attributes> {
  const groups = new Map<number, Attributes>()
  const from = prefix.length + 1
  // Keys, not entries: most keys are not under the prefix, and an entry is an array each.
  let sorted = true
  let last = -1
  for (const key of Object.keys(plainAttributes(attributes))) {
    if (key.charCodeAt(prefix.length) !== 46 /* . */ || !key.startsWith(prefix)) continue
    let index = 0
    let at = from
    for (; at < key.length; at++) {
      const digit = key.charCodeAt(at) - 48
      if (digit < 0 || digit > 9) break
      index = index * 10 + digit
    }
    if (at === from || key.charCodeAt(at) !== 46 /* . */) continue
    let group = groups.get(index)
    if (group === undefined) {
      // Null prototype: a key `<prefix>.0.__proto__` must stay a key, and no key is inherited.
      group = Object.create(null) as Attributes
      groups.set(index, group)
      if (index < last) sorted = false
      last = index
    }
    group[key.slice(at + 1)] = attributes[key]!
  }
  // Producers write the groups in index order: then the map is in order already.
  return sorted ? groups : new Map([...groups.entries()].sort((a, b) => a[0] - b[0]))
}
