/**
 * Span-name patterns of producer profiles: JavaScript regular expressions restricted to a form
 * that cannot backtrack catastrophically, matched only against names of bounded length. The rules
 * (checked before a profile is used; `docs/producer-profiles.md`, "Patterns"):
 * - no backreferences (`\1`, `\k<n>`) and no lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`);
 * - no quantifier on a group that holds a quantifier or an alternation (`(a+)+`, `(a|ab)*`): the
 *   nested and ambiguous repetitions that take exponential time;
 * - at most one unbounded quantifier (`*`, `+`, `{n,}`, `{n,m}` with m > 16) in the whole pattern,
 *   so a match costs at most about n² steps for a name of n characters;
 * - names longer than {@link MAX_PATTERN_NAME_CHARS} never match a pattern (so n² stays small).
 */

/** Span names longer than this are not matched against patterns (they match no pattern). */
export const MAX_PATTERN_NAME_CHARS = 256

const BOUNDED_REPEAT_MAX = 16

/** One group being scanned: whether it holds a quantifier or an alternation. */
interface Group {
  quantified: boolean
  alternation: boolean
}

/** Reads a `{n}`, `{n,}` or `{n,m}` quantifier at `i`; undefined when the brace is a literal. */
function braceQuantifier(pattern: string, i: number): { end: number; unbounded: boolean } | undefined {
  const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 16))
  if (!match) return undefined
  const upper = match[2] === undefined ? Number(match[1]) : match[3] === '' ? Infinity : Number(match[3])
  return { end: i + match[0].length, unbounded: upper > BOUNDED_REPEAT_MAX }
}

/** The quantifier at `i`, if any: its end and whether it repeats without a small bound. */
function quantifierAt(pattern: string, i: number): { end: number; unbounded: boolean } | undefined {
  const c = pattern[i]
  let q: { end: number; unbounded: boolean } | undefined
  if (c === '*' || c === '+') q = { end: i + 1, unbounded: true }
  else if (c === '?') q = { end: i + 1, unbounded: false }
  else if (c === '{') q = braceQuantifier(pattern, i)
  if (q && pattern[q.end] === '?') q.end++ // lazy
  return q
}

/** Skips a character class `[...]` starting at `i`; returns the index after it. */
function skipClass(pattern: string, i: number): number {
  let j = i + 1
  if (pattern[j] === '^') j++
  if (pattern[j] === ']') j++
  while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1
  return j + 1
}

/**
 * Why a span-name pattern is refused, or undefined when it is safe: a bad regular expression or
 * one of the forms that backtrack (see the file comment).
 */
export function patternProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u')
  } catch (error) {
    return `not a valid regular expression: ${(error as Error).message}`
  }
  if (/\\[1-9]|\\k</.test(pattern))
    return 'backreferences are not allowed (they can make matching take exponential time)'
  if (/\(\?<?[=!]/.test(pattern)) return 'lookaround is not allowed in span-name patterns'
  const stack: Group[] = [{ quantified: false, alternation: false }]
  let unbounded = 0
  let i = 0
  while (i < pattern.length) {
    const c = pattern[i]!
    let atomEnd = i + 1
    let closed: Group | undefined
    if (c === '\\') atomEnd = i + 2
    else if (c === '[') atomEnd = skipClass(pattern, i)
    else if (c === '(') {
      stack.push({ quantified: false, alternation: false })
      if (pattern[i + 1] !== '?') i += 1
      else i = pattern[i + 2] === '<' ? pattern.indexOf('>', i) + 1 : i + 3
      continue
    } else if (c === ')') closed = stack.pop()
    else if (c === '|') stack[stack.length - 1]!.alternation = true
    const q = quantifierAt(pattern, atomEnd)
    if (q) {
      if (closed && (closed.quantified || closed.alternation))
        return 'a quantifier on a group that repeats or alternates inside (like (a+)+ or (a|ab)*) can backtrack catastrophically'
      if (q.unbounded && ++unbounded > 1)
        return 'at most one unbounded quantifier (*, +, {n,}) is allowed in a span-name pattern (matching stays linear-ish)'
      stack[stack.length - 1]!.quantified = true
    }
    if (closed) {
      const parent = stack[stack.length - 1]!
      parent.quantified ||= closed.quantified
      parent.alternation ||= closed.alternation
    }
    i = q ? q.end : atomEnd
  }
  return undefined
}

/** A name test for a checked pattern: names over {@link MAX_PATTERN_NAME_CHARS} characters do not match. */
export function compilePattern(pattern: string): (name: string) => boolean {
  const problem = patternProblem(pattern)
  if (problem) throw new Error(`span-name pattern ${JSON.stringify(pattern)}: ${problem}`)
  const regex = new RegExp(pattern, 'u')
  return (name) => name.length <= MAX_PATTERN_NAME_CHARS && regex.test(name)
}

/** The first group of a checked pattern's match in a name (bounded as {@link compilePattern}). */
export function compileCapture(pattern: string): (name: string) => string | undefined {
  compilePattern(pattern)
  const regex = new RegExp(pattern, 'u')
  return (name) => (name.length <= MAX_PATTERN_NAME_CHARS ? regex.exec(name)?.[1] || undefined : undefined)
}

/**
 * A text every name a checked pattern matches starts with: the literal characters after a leading
 * `^` (`^langchain4j\.(aiservices|tools)\.` gives `langchain4j.`), or '' when the pattern has
 * none or may match otherwise (an alternation outside groups). A cheap first test of span names.
 */
export function literalPrefix(pattern: string): string {
  if (!pattern.startsWith('^')) return ''
  let depth = 0
  let inClass = false
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\') i++
    else if (inClass) inClass = c !== ']'
    else if (c === '[') inClass = true
    else if (c === '(') depth++
    else if (c === ')') depth--
    else if (c === '|' && depth === 0) return ''
  }
  let prefix = ''
  for (let i = 1; i < pattern.length; i++) {
    let c = pattern[i]!
    if (c === '\\') {
      const next = pattern[i + 1]
      if (next === undefined || /[A-Za-z0-9]/.test(next)) break // a class (`\\d`), not a literal
      c = next
      i++
    } else if (!/[A-Za-z0-9 _:/-]/.test(c)) break
    // A literal made optional or repeated by the quantifier after it is not certain.
    if (/[?*+{]/.test(pattern[i + 1] ?? '')) break
    prefix += c
  }
  return prefix
}
