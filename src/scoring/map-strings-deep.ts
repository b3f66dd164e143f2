/** How `mapStringsDeep` treats each kind of string it meets. */
export interface StringMappers {
  value: (text: string) => string
  /** Object keys; kept as they are when absent. */
  key?: (key: string) => string
  /** Byte arrays; kept as they are when absent. */
  bytes?: (bytes: Uint8Array) => Uint8Array
}

/**
 * Deep-copies a value, passing every string value (and, when asked, every key and byte array)
 * through a mapper. Plain and null-prototype objects and arrays are copied; other objects (dates,
 * class instances) are kept as they are. Iterative, so a value nested hundreds of thousands of
 * levels deep (JSON in a tool argument) cannot overflow the stack; shared and circular
 * references stay shared and circular in the copy.
 */
export function mapStringsDeep<T>(value: T, mappers: StringMappers): T {
  const copies = new Map<object, unknown>()
  const pending: [source: object, target: Record<string, unknown> | unknown[]][] = []
  // Keys repeat across the objects of a run ("role", "content"): each distinct key is mapped once.
  const keys = new Map<string, string>()
  const mapKey = (key: string): string => {
    if (!mappers.key) return key
    let mapped = keys.get(key)
    if (mapped === undefined) {
      mapped = mappers.key(key)
      keys.set(key, mapped)
    }
    return mapped
  }
  const copy = (item: unknown): unknown => {
    if (typeof item === 'string') return mappers.value(item)
    if (item === null || typeof item !== 'object') return item
    if (item instanceof Uint8Array) return mappers.bytes ? mappers.bytes(item) : item
    const known = copies.get(item)
    if (known !== undefined) return known
    let target: Record<string, unknown> | unknown[]
    if (Array.isArray(item)) target = new Array(item.length)
    else {
      const prototype = Object.getPrototypeOf(item)
      if (prototype === Object.prototype) target = {}
      else if (prototype === null) target = Object.create(null)
      else return item
    }
    copies.set(item, target)
    pending.push([item, target])
    return target
  }
  const result = copy(value)
  while (pending.length > 0) {
    const [source, target] = pending.pop()!
    if (Array.isArray(target)) {
      const items = source as unknown[]
      for (let i = 0; i < items.length; i++) target[i] = copy(items[i])
      continue
    }
    // Once a key was changed, later keys may collide with it: from then on each is checked.
    let renamed = false
    for (const key of Object.keys(source)) {
      const item = copy((source as Record<string, unknown>)[key])
      const mapped = mapKey(key)
      if (mapped === key && !renamed && key !== '__proto__') target[key] = item
      else setOwn(target, mapped, item)
      renamed ||= mapped !== key
    }
  }
  return result as T
}

/**
 * Sets a key as an own data property (a `__proto__` key stays data, never a prototype); a key
 * that mapping made equal to an earlier one gets a suffix instead of overwriting it.
 */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  let name = key
  for (let n = 2; Object.hasOwn(target, name); n++) name = `${key}#${n}`
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true })
}
