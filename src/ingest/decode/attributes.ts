import type { Attributes, AttributeValue } from '../../model/span.ts'

/** How deep arrays and key-value lists may nest inside an attribute value (deeper input is rejected as `too_deep`). */
export const MAX_VALUE_DEPTH = 128

/**
 * Sets `key` on an attributes object (later duplicates win). A `__proto__` key becomes an own
 * property instead of replacing the prototype, so hostile input cannot reshape the object.
 */
export function setAttribute(target: Attributes, key: string, value: AttributeValue): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}
