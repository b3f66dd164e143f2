import { mapStringsDeep } from './map-strings-deep.ts'
import { redactBytes } from './redact-bytes.ts'

/**
 * Built-in redaction patterns, applied to every string of a run (keys, values, text inside
 * bytes) before a judge sees it. Each runs in time linear in the text: a match may only start
 * where a run of its characters starts (a lookbehind), and no pattern re-scans a run it has
 * given up on, so a megabyte of base64 costs one pass, not one pass per character.
 */
export const REDACTION_PATTERNS = {
  /** Addresses with Unicode local parts and domains (`jürgen@bücher.de`, punycode TLDs too). */
  email: /(?<![\p{L}\p{M}\p{N}_.%+-])[\p{L}\p{M}\p{N}_.%+-]+@[\p{L}\p{M}\p{N}-]+(?:\.[\p{L}\p{M}\p{N}-]+)+/gu,
  /** Provider keys (`sk-…`), GitHub tokens (`ghp_…`, `github_pat_…`), Slack, Google, AWS key ids and secret keys. */
  'api-key':
    /(?<![A-Za-z0-9_])(?:(?:sk|pk|rk|ak)[-_](?:live[-_]|test[-_]|proj[-_])?[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}|xox[abeprs]-[A-Za-z0-9-]{10,}|AIza[A-Za-z0-9_-]{35}|(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9]))|(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g,
  /** `Bearer …` in any case, and bare JSON Web Tokens. */
  'bearer-token':
    /\bbearer\s{1,16}[A-Za-z0-9._~+/-]{16,}=*|(?<![A-Za-z0-9_.-])eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/gi,
  /** 13–19 digits, grouped by spaces, dots or dashes or not at all, that pass the Luhn check. */
  'card-number': /[0-9]+(?:[ .-][0-9]+)*/g,
} as const

/** A built-in pattern's name. */
export type RedactionBuiltin = keyof typeof REDACTION_PATTERNS

/** Every built-in pattern's name. */
export const REDACTION_BUILTINS = Object.keys(REDACTION_PATTERNS) as RedactionBuiltin[]

/** A redaction policy: built-in pattern names plus custom string transforms. */
export interface RedactionPolicy {
  builtins?: RedactionBuiltin[]
  custom?: ((text: string) => string)[]
}

const marker = (name: RedactionBuiltin) => `[REDACTED:${name}]`

/** What each built-in replaces a match with: the marker, or the match itself when it is not a secret. */
const REPLACERS: Record<RedactionBuiltin, (match: string) => string> = {
  email: (match) => (hasTopLevelDomain(match) ? marker('email') : match),
  'api-key': (match) => (looksLikeKey(match) ? marker('api-key') : match),
  'bearer-token': () => marker('bearer-token'),
  'card-number': redactCardNumbers,
}

/** Returns a string transform that applies the policy. */
export function createRedactor(policy: RedactionPolicy): (text: string) => string {
  const builtins = (policy.builtins ?? []).map((name) => [REDACTION_PATTERNS[name], REPLACERS[name]] as const)
  const custom = policy.custom ?? []
  return (text) => {
    let out = text
    for (const [pattern, replace] of builtins) out = out.replace(pattern, replace)
    for (const fn of custom) out = fn(out)
    return out
  }
}

/** The last label is a top-level domain: two letters or more, or punycode (`xn--…`). */
function hasTopLevelDomain(address: string): boolean {
  const tld = address.slice(address.lastIndexOf('.') + 1)
  return /^(?:\p{L}{2,}|xn--[a-z0-9-]+)$/iu.test(tld)
}

const KEY_PREFIX = /^(?:(?:sk|pk|rk|ak)[-_]|gh[pousr]_|github_pat_|xox|AIza|AKIA|ASIA)/

/**
 * A prefixed key with enough letters and digits to be one (not `sk-` followed by dashes), or a
 * bare 40-character token in an AWS secret access key's shape: mixed case and digits.
 */
function looksLikeKey(token: string): boolean {
  if (KEY_PREFIX.test(token)) return token.replace(/[^A-Za-z0-9]/g, '').length >= 16
  return /[A-Z]/.test(token) && /[a-z]/.test(token) && /[0-9]/.test(token)
}

/**
 * Redacts the card numbers in a run of digit groups: every span of whole groups holding 13–19
 * digits that passes the Luhn check (so a card followed by an expiry year is still found).
 * Luhn sums of a span come from prefix sums, and at most 19 groups are looked at from each
 * group, so the work is linear in the run.
 */
function redactCardNumbers(run: string): string {
  if (run.length < 13) return run
  const groups = digitGroups(run)
  const digits = groups.at(-1)!.digitsBefore + groups.at(-1)!.length
  if (digits < 13) return run
  const sums = luhnPrefixSums(run, digits)
  let out = ''
  let copied = 0
  for (let from = 0; from < groups.length; ) {
    const first = groups[from]!
    let found = -1
    for (let to = from; to < groups.length; to++) {
      const count = groups[to]!.digitsBefore + groups[to]!.length - first.digitsBefore
      if (count > 19) break
      if (count >= 13 && sums.luhn(first.digitsBefore, first.digitsBefore + count) % 10 === 0) found = to
    }
    if (found < 0) {
      from++
      continue
    }
    const last = groups[found]!
    out += `${run.slice(copied, first.start)}${marker('card-number')}`
    copied = last.start + last.length
    from = found + 1
  }
  return copied === 0 ? run : out + run.slice(copied)
}

interface DigitGroup {
  start: number
  length: number
  /** Digits in the groups before this one. */
  digitsBefore: number
}

/** The groups of a run of digits separated by single spaces, dots or dashes. */
function digitGroups(run: string): DigitGroup[] {
  const groups: DigitGroup[] = []
  let digitsBefore = 0
  let start = 0
  for (let i = 0; i <= run.length; i++) {
    const code = run.charCodeAt(i)
    if (code >= 48 && code <= 57) continue
    groups.push({ start, length: i - start, digitsBefore })
    digitsBefore += i - start
    start = i + 1
  }
  return groups
}

/**
 * Luhn sums of any span of the run's digits in O(1): the digit `k` places from the span's right
 * end is doubled when `k` is odd, so per parity of the digit's index, prefix sums of the digits
 * and of their doubled values give the sum of any span.
 */
function luhnPrefixSums(run: string, count: number) {
  const plain = [new Int32Array(count + 1), new Int32Array(count + 1)]
  const doubled = [new Int32Array(count + 1), new Int32Array(count + 1)]
  let index = 0
  for (let i = 0; i < run.length; i++) {
    const digit = run.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) continue
    for (const parity of [0, 1]) {
      const same = index % 2 === parity
      plain[parity]![index + 1] = plain[parity]![index]! + (same ? digit : 0)
      doubled[parity]![index + 1] =
        doubled[parity]![index]! + (same ? (digit * 2 > 9 ? digit * 2 - 9 : digit * 2) : 0)
    }
    index++
  }
  /** The Luhn sum of digits [from, to). */
  const luhn = (from: number, to: number): number => {
    // Index j is doubled when (to - 1 - j) is odd, that is when j has the parity of `to`.
    const d = to % 2
    const p = 1 - d
    return doubled[d]![to]! - doubled[d]![from]! + plain[p]![to]! - plain[p]![from]!
  }
  return { luhn }
}

/**
 * Deep-copies a value, passing every string through `redact`: object keys and values, array
 * items, and the text inside byte arrays (see `mapStringsDeep` for what is copied; any depth).
 */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  return mapStringsDeep(value, { value: redact, key: redact, bytes: (bytes) => redactBytes(bytes, redact) })
}
