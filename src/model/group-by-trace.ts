/**
 * Groups spans by trace id, keeping arrival order within each trace and the order in which
 * traces were first seen. `traceIdOf` reads the id of spans of another shape (an SDK span).
 */
export function groupByTrace<S extends { traceId: string }>(spans: Iterable<S>): Map<string, S[]>
export function groupByTrace<S>(spans: Iterable<S>, traceIdOf: (span: S) => string): Map<string, S[]>
export function groupByTrace<S>(
  spans: Iterable<S>,
  traceIdOf: (span: S) => string = (span) => (span as { traceId: string }).traceId,
): Map<string, S[]> {
  const traces = new Map<string, S[]>()
  for (const span of spans) {
    const id = traceIdOf(span)
    const list = traces.get(id)
    if (list) list.push(span)
    else traces.set(id, [span])
  }
  return traces
}
