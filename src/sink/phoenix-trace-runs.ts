import { postJson } from './http-json.ts'
import type { PreviousRuns, TraceRunScore } from './trace-score.ts'

/** Where and how to ask Phoenix's GraphQL API. */
interface PhoenixGraphqlRequest {
  /** `<base>/graphql`. */
  url: string
  headers: Record<string, string>
  timeoutMs: number
}

/** A trace annotation as the GraphQL query below returns it. */
interface GraphqlTraceAnnotation {
  identifier?: string
  metadata?: unknown
}

/**
 * The agent runs tracescore already recorded in Phoenix's trace annotations of `traceIds` (from
 * each annotation's `metadata.runs`), so a delivery that holds only some runs of a trace (a late
 * agent run re-opened a released trace) merges into them instead of replacing them. One GraphQL
 * request (`getTraceByOtelId` per trace, by alias): Phoenix's REST API lists trace annotations per
 * project only, and the sink does not know the project. Annotations not written by tracescore and
 * malformed run entries are ignored.
 */
export async function readPhoenixTraceRuns(
  request: PhoenixGraphqlRequest,
  traceIds: readonly string[],
): Promise<PreviousRuns> {
  if (traceIds.length === 0) return () => undefined
  const variables = Object.fromEntries(traceIds.map((id, i) => [`t${i}`, id]))
  const fields = traceIds
    .map((_, i) => `t${i}: getTraceByOtelId(traceId: $t${i}) { traceAnnotations { identifier metadata } }`)
    .join(' ')
  const declarations = traceIds.map((_, i) => `$t${i}: String!`).join(', ')
  const answer = (await postJson({
    url: request.url,
    body: { query: `query TracescoreTraceRuns(${declarations}) { ${fields} }`, variables },
    headers: request.headers,
    timeoutMs: request.timeoutMs,
  })) as { data?: Record<string, { traceAnnotations?: GraphqlTraceAnnotation[] } | null>; errors?: unknown }
  if (answer?.errors || typeof answer?.data !== 'object' || answer.data === null) {
    throw new Error(
      `Phoenix GraphQL ${request.url} answered without data: ${JSON.stringify(answer).slice(0, 300)}`,
    )
  }
  const runs = new Map<string, TraceRunScore[]>()
  traceIds.forEach((traceId, i) => {
    for (const annotation of answer.data![`t${i}`]?.traceAnnotations ?? []) {
      const metadata = annotation.metadata as { source?: unknown; scorer_id?: unknown; runs?: unknown }
      if (metadata?.source !== 'tracescore' || typeof metadata.scorer_id !== 'string') continue
      if (annotation.identifier !== metadata.scorer_id || !Array.isArray(metadata.runs)) continue
      runs.set(`${traceId}/${metadata.scorer_id}`, metadata.runs.filter(isRunScore))
    }
  })
  return (traceId, scorerId) => runs.get(`${traceId}/${scorerId}`)
}

function isRunScore(value: unknown): value is TraceRunScore {
  const run = value as TraceRunScore
  return (
    typeof run === 'object' &&
    run !== null &&
    typeof run.span_id === 'string' &&
    typeof run.run_id === 'string' &&
    (run.score === undefined || typeof run.score === 'number') &&
    (run.label === undefined || typeof run.label === 'string') &&
    (run.error === undefined || typeof run.error === 'string')
  )
}
