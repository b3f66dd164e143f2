/** Built-in redaction patterns, applied to every string of a run before a judge sees it. */
export const REDACTION_PATTERNS = {
  email: /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g,
  'api-key':
    /\b(?:sk|pk|rk|ak)[-_](?:live[-_]|test[-_]|proj[-_])?[A-Za-z0-9_-]{16,}\b|\bAKIA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{30,}\b/g,
  'bearer-token': /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/g,
  'card-number': /\b(?:\d[ -]?){12,18}\d\b/g,
} as const

/** A redaction policy: built-in pattern names plus custom string transforms. */
export interface RedactionPolicy {
  builtins?: (keyof typeof REDACTION_PATTERNS)[]
  custom?: ((text: string) => string)[]
}

/** Returns a string transform that applies the policy. */
export function createRedactor(policy: RedactionPolicy): (text: string) => string {
  const patterns = (policy.builtins ?? []).map((name) => [name, REDACTION_PATTERNS[name]] as const)
  const custom = policy.custom ?? []
  return (text) => {
    let out = text
    for (const [name, pattern] of patterns) out = out.replace(pattern, `[REDACTED:${name}]`)
    for (const fn of custom) out = fn(out)
    return out
  }
}

/**
 * Deep-copies a value, passing every string through `redact`. Dates, typed arrays and class
 * instances other than plain objects and arrays are kept as they are.
 */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === 'string') return redact(value) as T
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact)) as T
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, redact)
    return out as T
  }
  return value
}
