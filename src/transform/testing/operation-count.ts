import type { Span } from '../../model/index.ts'

/**
 * Counts the elementary operations a piece of work does on a trace, so tests can check that
 * the work grows linearly with its input without timing it. Counted: every property read on a
 * span, every `Map`/`Set`/`WeakMap` lookup and insertion, and every element a list search visits (`indexOf`,
 * `includes`, `find`, `some`, ...). A quadratic algorithm shows up as a count that grows with the
 * square of the input; the budget stops it early (the work sees an exception) so a failing test
 * does not run for minutes.
 */
export interface OperationCount<T> {
  value?: T
  operations: number
  /** Whether the budget ran out before the work finished. */
  exceeded: boolean
}

/** Thrown inside the measured work when it has used up its budget. */
export class OperationBudgetExceeded extends Error {}

type Method = (...args: unknown[]) => unknown
type Patch = { target: object; name: string; original: Method }

const SEARCHES_BY_CALLBACK = ['find', 'findIndex', 'findLast', 'findLastIndex', 'some', 'every'] as const
const SEARCHES_BY_VALUE = ['indexOf', 'lastIndexOf', 'includes'] as const

export function countOperations<T>(
  spans: readonly Span[],
  work: (spans: Span[]) => T,
  budget = Number.POSITIVE_INFINITY,
): OperationCount<T> {
  let operations = 0
  let exceeded = false
  const tick = (count = 1) => {
    operations += count
    if (operations <= budget) return
    // The work may catch this (the transform turns a failing run into a bare one); the flag stays.
    exceeded = true
    throw new OperationBudgetExceeded(`more than ${budget} operations`)
  }
  const counted = spans.map(
    (span) =>
      new Proxy(span, {
        get(target, key, receiver) {
          tick()
          return Reflect.get(target, key, receiver)
        },
      }),
  )
  const patches: Patch[] = []
  const patch = (target: object, name: string, wrap: (original: Method) => Method) => {
    const original = (target as Record<string, Method>)[name]!
    patches.push({ target, name, original })
    ;(target as Record<string, Method>)[name] = wrap(original)
  }
  for (const prototype of [Map.prototype, Set.prototype, WeakMap.prototype]) {
    for (const name of ['get', 'has', 'set', 'add']) {
      if (!(name in prototype)) continue
      patch(
        prototype,
        name,
        (original) =>
          function (this: unknown, ...args: unknown[]) {
            tick()
            return original.apply(this, args)
          },
      )
    }
  }
  for (const name of SEARCHES_BY_CALLBACK) {
    patch(
      Array.prototype,
      name,
      (original) =>
        function (this: unknown[], callback: unknown, ...rest: unknown[]) {
          const visit = callback as Method
          return original.call(
            this,
            function (this: unknown, ...args: unknown[]) {
              tick()
              return visit.apply(this, args)
            },
            ...rest,
          )
        },
    )
  }
  for (const name of SEARCHES_BY_VALUE) {
    patch(
      Array.prototype,
      name,
      (original) =>
        function (this: unknown[], ...args: unknown[]) {
          const found = original.apply(this, args)
          // Elements visited: up to the hit, or all of them on a miss (an upper bound for includes).
          tick(typeof found === 'number' && found >= 0 ? found + 1 : this.length)
          return found
        },
    )
  }
  // A run that blows the budget throws once per remaining run; stack traces would only slow that.
  const stackTraceLimit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    const value = work(counted)
    return { value, operations, exceeded }
  } catch (error) {
    if (error instanceof OperationBudgetExceeded) return { operations, exceeded: true }
    throw error
  } finally {
    Error.stackTraceLimit = stackTraceLimit
    for (const { target, name, original } of patches.reverse()) {
      ;(target as Record<string, Method>)[name] = original
    }
  }
}
