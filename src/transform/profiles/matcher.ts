import type { Attributes, AttributeValue, Span } from '../../model/index.ts'
import type { SpanMatcher } from './profile-schema.ts'
import { compilePattern } from './safe-pattern.ts'

/**
 * A compiled span matcher, given what it reads of a span (read once by the caller for every
 * profile it tries: a span's properties may be costly, the role view of the ingest path's spans).
 */
export type SpanTest = (name: string, scope: string | undefined, attributes: Attributes) => boolean

/** Asks a matcher of one span. */
export function testSpan(test: SpanTest, span: Span): boolean {
  return test(span.name, span.scope?.name, span.attributes)
}

type Conditions = Exclude<SpanMatcher, { anyOf: unknown }>

function compileConditions(conditions: Conditions): SpanTest {
  const tests: SpanTest[] = []
  const { scope, spanName, spanNamePattern, equals, exists } = conditions
  // Cheapest first: a span that fails a comparison never runs the pattern.
  if (scope !== undefined) tests.push((_name, spanScope) => spanScope === scope)
  if (spanName !== undefined) tests.push((name) => name === spanName)
  if (equals !== undefined) {
    for (const [key, expected] of Object.entries(equals)) {
      tests.push((_name, _scope, attributes) => sameValue(attributes[key], expected))
    }
  }
  if (exists !== undefined) {
    for (const key of exists)
      tests.push((_name, _scope, attributes) => attributes[key] !== undefined && attributes[key] !== null)
  }
  if (spanNamePattern !== undefined) {
    const test = compilePattern(spanNamePattern)
    tests.push((name) => test(name))
  }
  if (tests.length === 0) return () => true
  return (name, scope, attributes) => {
    for (const test of tests) if (!test(name, scope, attributes)) return false
    return true
  }
}

/** An attribute equals a profile's scalar: numbers and booleans also as their text. */
function sameValue(value: AttributeValue | undefined, expected: string | number | boolean): boolean {
  if (value === expected) return true
  return typeof value === 'string' && typeof expected !== 'string' && value === String(expected)
}

/** Compiles a matcher (its patterns checked: throws on one that may backtrack). */
export function compileMatcher(matcher: SpanMatcher): SpanTest {
  if (!('anyOf' in matcher)) return compileConditions(matcher)
  const tests = matcher.anyOf.map(compileConditions)
  return (name, scope, attributes) => {
    for (const test of tests) if (test(name, scope, attributes)) return true
    return false
  }
}

/** The attribute keys a matcher reads: what the ingest path's role view must decode at once. */
export function matcherKeys(matcher: SpanMatcher | undefined): string[] {
  if (!matcher) return []
  const all = 'anyOf' in matcher ? matcher.anyOf : [matcher]
  return all.flatMap((conditions) => [...Object.keys(conditions.equals ?? {}), ...(conditions.exists ?? [])])
}
