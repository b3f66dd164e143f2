/**
 * The JSON paths of producer profiles: a small, safe subset of JSONPath, evaluated without code:
 * `$`, `.key`, `['key']` / `["key"]`, `[N]` and `[*]` (every element or value). No filters, no
 * recursive descent, no scripts. A path has at most {@link MAX_PATH_STEPS} steps, and a path with
 * wildcards yields at most {@link MAX_PATH_RESULTS} values (the rest are dropped), so reading one
 * costs at most steps × results.
 */

/** Most steps in one path. */
export const MAX_PATH_STEPS = 16
/** Most values a path with `[*]` yields. */
export const MAX_PATH_RESULTS = 1_000

/** One step of a path: a key, an index, or every child. */
export type PathStep = { key: string } | { index: number } | { all: true }

/** A parsed path; `wildcard` when it may yield several values (then it yields a list). */
export interface JsonPath {
  steps: PathStep[]
  wildcard: boolean
}

const STEP =
  /^(?:\.([A-Za-z_$][\w$-]*)|\[(\d{1,9})\]|\[\*\]|\.\*|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\])/

/** Parses a path; throws an Error saying what is wrong, at which character. */
export function parseJsonPath(path: string): JsonPath {
  if (!path.startsWith('$')) throw new Error(`JSON path ${JSON.stringify(path)} must start with $`)
  const steps: PathStep[] = []
  let rest = path.slice(1)
  while (rest.length > 0) {
    const match = STEP.exec(rest)
    if (!match) {
      const at = path.length - rest.length
      throw new Error(
        `JSON path ${JSON.stringify(path)}: cannot read ${JSON.stringify(rest.slice(0, 20))} at character ${at} (supported: .key, ['key'], [N], [*])`,
      )
    }
    if (match[1] !== undefined) steps.push({ key: match[1] })
    else if (match[2] !== undefined) steps.push({ index: Number(match[2]) })
    else if (match[3] !== undefined || match[4] !== undefined)
      steps.push({ key: (match[3] ?? match[4]!).replace(/\\(.)/g, '$1') })
    else steps.push({ all: true })
    if (steps.length > MAX_PATH_STEPS)
      throw new Error(`JSON path ${JSON.stringify(path)} has more than ${MAX_PATH_STEPS} steps`)
    rest = rest.slice(match[0].length)
  }
  return { steps, wildcard: steps.some((step) => 'all' in step) }
}

/** Why a path is refused, or undefined when it parses. */
export function jsonPathProblem(path: string): string | undefined {
  try {
    parseJsonPath(path)
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

function child(value: unknown, step: PathStep, out: unknown[]): void {
  if (value === null || typeof value !== 'object') return
  if ('key' in step) {
    if (!Array.isArray(value) && Object.hasOwn(value, step.key))
      out.push((value as Record<string, unknown>)[step.key])
  } else if ('index' in step) {
    if (Array.isArray(value) && step.index < value.length) out.push(value[step.index])
  } else {
    const children = Array.isArray(value) ? value : Object.values(value)
    for (const item of children) {
      if (out.length >= MAX_PATH_RESULTS) return
      out.push(item)
    }
  }
}

/**
 * The value at `path` in `value`: undefined when absent; for a path with `[*]`, the list of the
 * values found (at most {@link MAX_PATH_RESULTS}), undefined when none.
 */
export function evaluateJsonPath(path: JsonPath, value: unknown): unknown {
  let current: unknown[] = [value]
  for (const step of path.steps) {
    const next: unknown[] = []
    for (const item of current) {
      child(item, step, next)
      if (next.length >= MAX_PATH_RESULTS) break
    }
    if (next.length === 0) return undefined
    current = next.length > MAX_PATH_RESULTS ? next.slice(0, MAX_PATH_RESULTS) : next
  }
  return path.wildcard ? current : current[0]
}
