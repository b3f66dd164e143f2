import type { Attributes, AttributeValue, Span } from '../../model/index.ts'
import type { SpanMatcher } from './profile-schema.ts'
import { compilePattern, literalPrefix } from './safe-pattern.ts'

/**
 * A compiled span matcher, given what it reads of a span (read once by the caller for every
 * profile it tries: a span's properties may be costly, the role view of the ingest path's spans).
 */
export type SpanTest = (name: string, scope: string | undefined, attributes: Attributes) => boolean

type Conditions = Exclude<SpanMatcher, { anyOf: unknown }>

/**
 * One branch of a matcher, in two halves: what it asks of the span's name and scope (the same for
 * every span of that name and scope: `useProfiles` remembers it per pair) and of its attributes.
 * Undefined halves ask nothing.
 */
export interface Branch {
  byName?: (name: string, scope: string | undefined) => boolean
  byAttributes?: (attributes: Attributes) => boolean
  /** A text every span name the branch takes starts with (from `spanName` or a pattern's `^literal`). */
  namePrefix?: string
}

/** All of some attribute tests, as one (no array made per call: asked of every span). */
function allOf(
  tests: ((attributes: Attributes) => boolean)[],
): ((attributes: Attributes) => boolean) | undefined {
  if (tests.length <= 1) return tests[0]
  return (attributes) => {
    for (const test of tests) if (!test(attributes)) return false
    return true
  }
}

/** All of some name-and-scope tests, as one. */
function allOfNamed(
  tests: ((name: string, scope: string | undefined) => boolean)[],
): ((name: string, scope: string | undefined) => boolean) | undefined {
  if (tests.length <= 1) return tests[0]
  return (name, scope) => {
    for (const test of tests) if (!test(name, scope)) return false
    return true
  }
}

function compileBranch(conditions: Conditions): Branch {
  const { scope, spanName, spanNamePattern, equals, exists } = conditions
  const byName: ((name: string, scope: string | undefined) => boolean)[] = []
  // Cheapest first: a span that fails a comparison never runs the pattern.
  if (scope !== undefined) byName.push((_name, spanScope) => spanScope === scope)
  if (spanName !== undefined) byName.push((name) => name === spanName)
  if (spanNamePattern !== undefined) {
    const test = compilePattern(spanNamePattern)
    byName.push((name) => test(name))
  }
  const byAttributes: ((attributes: Attributes) => boolean)[] = []
  for (const [key, expected] of Object.entries(equals ?? {}))
    byAttributes.push((attributes) => sameValue(attributes[key], expected))
  for (const key of exists ?? [])
    byAttributes.push((attributes) => attributes[key] !== undefined && attributes[key] !== null)
  const branch: Branch = {}
  const namePrefix = spanName ?? (spanNamePattern === undefined ? '' : literalPrefix(spanNamePattern))
  if (namePrefix) branch.namePrefix = namePrefix
  const nameTest = allOfNamed(byName)
  const attributesTest = allOf(byAttributes)
  if (nameTest) branch.byName = nameTest
  if (attributesTest) branch.byAttributes = attributesTest
  return branch
}

/** A matcher's branches (one without `anyOf`); patterns checked: throws on one that may backtrack. */
export function compileBranches(matcher: SpanMatcher): Branch[] {
  return ('anyOf' in matcher ? matcher.anyOf : [matcher]).map(compileBranch)
}

/** An attribute equals a profile's scalar: numbers and booleans also as their text. */
function sameValue(value: AttributeValue | undefined, expected: string | number | boolean): boolean {
  if (value === expected) return true
  return typeof value === 'string' && typeof expected !== 'string' && value === String(expected)
}

/** Compiles a matcher (its patterns checked: throws on one that may backtrack). */
export function compileMatcher(matcher: SpanMatcher): SpanTest {
  const branches = compileBranches(matcher)
  return (name, scope, attributes) => {
    for (const { byName, byAttributes } of branches) {
      if ((!byName || byName(name, scope)) && (!byAttributes || byAttributes(attributes))) return true
    }
    return false
  }
}

/** Name-and-scope pairs a {@link byNameAndScope} remembers; past this many, it works each out again. */
const MAX_PAIRS = 4_096
/** Longest name plus scope remembered. */
const MAX_PAIR_CHARS = 512

/**
 * `work` of a span's name and scope, worked out once per pair (spans of one producer share a few):
 * by scope, then by name, so no key is built per span. Bounded: past {@link MAX_PAIRS} pairs, or
 * for a long name, it is worked out each time (a hostile trace's names would stay in memory).
 */
export function byNameAndScope<T>(work: (name: string, scope: string | undefined) => T): (span: Span) => T {
  const remembered = new Map<string | undefined, Map<string, T>>()
  let pairs = 0
  return (span) => {
    const name = span.name
    const scope = span.scope?.name
    let byName = remembered.get(scope)
    const known = byName?.get(name)
    if (known !== undefined) return known
    const value = work(name, scope)
    if (pairs < MAX_PAIRS && name.length + (scope?.length ?? 0) <= MAX_PAIR_CHARS) {
      if (!byName) {
        byName = new Map()
        remembered.set(scope, byName)
      }
      byName.set(name, value)
      pairs++
    }
    return value
  }
}

/**
 * A matcher as a test of whole spans, for a reader's `matches` (asked of every span of every
 * trace): what its branches ask of a span's name and scope is worked out once per pair, so most
 * spans are rejected by one lookup and only the attribute tests left are asked. A matcher whose
 * branches ask nothing of names tests the attributes directly.
 */
export function spanMatcher(matcher: SpanMatcher): (span: Span) => boolean {
  const branches = compileBranches(matcher)
  if (branches.every((branch) => branch.byName === undefined)) {
    // Nothing asked of the name or scope: neither is read (a lazily decoded span decodes its name
    // when read). Built-in profiles' matchers are asked of every span of every trace.
    const tests = branches.map((branch) => branch.byAttributes)
    if (tests.some((test) => test === undefined)) return () => true
    const [only] = tests
    if (tests.length === 1) return (span) => only!(span.attributes)
    return (span) => {
      for (const test of tests) if (test!(span.attributes)) return true
      return false
    }
  }
  const openOf = byNameAndScope((name, scope) => {
    const open: (((attributes: Attributes) => boolean) | undefined)[] = []
    for (const { byName, byAttributes } of branches)
      if (!byName || byName(name, scope)) open.push(byAttributes)
    return open
  })
  // Where every branch names how span names start, most spans are turned away by that alone.
  const prefixes = branches.every((branch) => branch.namePrefix)
    ? branches.map((branch) => branch.namePrefix!)
    : undefined
  return (span) => {
    if (prefixes && !startsWithOne(span.name, prefixes)) return false
    for (const test of openOf(span)) if (!test || test(span.attributes)) return true
    return false
  }
}

function startsWithOne(name: string, prefixes: readonly string[]): boolean {
  for (const prefix of prefixes) if (name.startsWith(prefix)) return true
  return false
}

/** The attribute keys a matcher reads: what the ingest path's role view must decode at once. */
export function matcherKeys(matcher: SpanMatcher | undefined): string[] {
  if (!matcher) return []
  const all = 'anyOf' in matcher ? matcher.anyOf : [matcher]
  return all.flatMap((conditions) => [...Object.keys(conditions.equals ?? {}), ...(conditions.exists ?? [])])
}
