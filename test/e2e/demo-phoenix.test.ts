import { beforeAll, describe, expect, it } from 'vitest'
import { type CliResult, runCli } from '../helpers/cli.ts'
import {
  getSpans,
  getTraceAnnotations,
  type PhoenixSpan,
  phoenixUrl,
  waitForSpans,
} from '../helpers/phoenix.ts'

const scorers = ['answered', 'tool-success', 'helpfulness']
const day = 24 * 3600_000
const runs = 8

/** The rows of the summary table `tracescore demo` prints: agent, scorer, scored, mean. */
function printedSummary(stdout: string): { agent: string; scorer: string; scored: number; mean: number }[] {
  const rows = stdout.split('\n').filter((line) => scorers.some((s) => line.includes(`  ${s}  `)))
  return rows.map((line) => {
    const cells = line.trim().split(/\s{2,}/)
    return { agent: cells[0]!, scorer: cells[1]!, scored: Number(cells[2]), mean: Number(cells[3]) }
  })
}

// `npm run demo` with Phoenix running, then a user opens Phoenix: its default view shows the last
// 7 days. The demo replays recordings made months ago, so their spans must be moved to the present
// (the scores are stamped now) for the runs to show up, each with its scores under it, and each
// trace with one trace annotation per scorer (what Phoenix's trace list and its "Trace annotation
// scores" chart show).
describe('tracescore demo → Phoenix', () => {
  let started: Date
  let result: CliResult
  let scoreCount: number
  let scores: PhoenixSpan[]

  beforeAll(async () => {
    started = new Date()
    result = await runCli(['demo', '--runs', String(runs)], {
      env: { PHOENIX_URL: phoenixUrl() },
      timeoutMs: 240_000,
    })
    expect(result.code, result.stderr).toBe(0)
    scoreCount = Number(result.stdout.match(/\n(\d+) scores for 8 traces; 0 failed scorings\./)![1])
    // The demo's score spans: written while it ran (e2e files run one at a time).
    scores = await waitForSpans('default', {
      name: scorers.map((s) => `evaluation ${s}`),
      startTime: started,
      endTime: new Date(),
      minCount: scoreCount,
      timeoutMs: 60_000,
    })
  }, 330_000)

  it('shows every replayed run in the present, with its scores after it', async () => {
    expect(result.stdout).toContain(`Phoenix at ${phoenixUrl()}: score spans and annotations go there`)
    expect(scoreCount).toBeGreaterThanOrEqual(runs * scorers.length)
    expect(scores).toHaveLength(scoreCount)
    // Recordings keep their span ids (only trace ids are fresh): a span is its trace and span id.
    const key = (traceId: string, spanId: string) => `${traceId}:${spanId}`
    const traceIds = [...new Set(scores.map((s) => s.context.trace_id))]
    const agentKeys = new Set(scores.map((s) => key(s.context.trace_id, s.parent_id!)))

    // Every agent span they score is in the default view (last 7 days) and ended before its scores.
    const inView = (spans: PhoenixSpan[]) =>
      spans.filter((a) => agentKeys.has(key(a.context.trace_id, a.context.span_id)))
    const recent = inView(
      await waitForSpans('default', {
        traceId: traceIds,
        startTime: new Date(Date.now() - 7 * day),
        predicate: (spans) => inView(spans).length >= agentKeys.size,
        timeoutMs: 60_000,
      }),
    )
    expect(recent).toHaveLength(agentKeys.size)
    const agents = new Map(recent.map((a) => [key(a.context.trace_id, a.context.span_id), a]))
    for (const score of scores) {
      const agent = agents.get(key(score.context.trace_id, score.parent_id!))!
      expect(Date.parse(agent.end_time)).toBeLessThanOrEqual(Date.parse(score.start_time))
      // Moved to the moment the demo produced it: after the demo started, not in the recording's past.
      expect(Date.parse(agent.end_time)).toBeGreaterThanOrEqual(started.getTime())
    }
    // The whole trace moved, not only the agent span: no span of these traces is older than a day.
    const traces = await getSpans('default', { traceId: traceIds })
    const oldest = Math.min(...traces.map((s) => Date.parse(s.start_time)))
    expect(oldest).toBeGreaterThan(started.getTime() - day)
  })

  it('gives every demo trace one trace annotation per scorer: the mean and count of its runs, as printed', async () => {
    // The scores per (trace, scorer), as the score spans in Phoenix carry them.
    const expected = new Map<string, { name: string; values: number[]; agentSpans: string[] }>()
    for (const span of scores) {
      const scorer = span.attributes['tracescore.scorer.id'] as string
      const k = `${span.context.trace_id}/${scorer}`
      const entry = expected.get(k) ?? {
        name: span.attributes['gen_ai.evaluation.name'] as string,
        values: [],
        agentSpans: [],
      }
      entry.values.push(span.attributes['gen_ai.evaluation.score.value'] as number)
      entry.agentSpans.push(span.parent_id!)
      expected.set(k, entry)
    }
    const traceIds = [...new Set(scores.map((s) => s.context.trace_id))]
    expect(traceIds).toHaveLength(runs) // every demo trace was scored

    const annotations = (await getTraceAnnotations('default', traceIds)).filter(
      (a) => a.metadata?.source === 'tracescore',
    )
    const actual = new Map(annotations.map((a) => [`${a.trace_id}/${a.identifier}`, a]))
    expect(annotations).toHaveLength(actual.size) // one per (trace, scorer): none duplicated
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort())
    let severalRuns = 0
    for (const [k, { name, values, agentSpans }] of expected) {
      const annotation = actual.get(k)!
      const mean = values.reduce((a, b) => a + b, 0) / values.length
      expect(annotation.name, k).toBe(name)
      expect(annotation.result!.score, k).toBeCloseTo(mean, 12)
      expect(annotation.metadata!.count, k).toBe(values.length)
      const spans = (annotation.metadata!.runs as { span_id: string }[]).map((r) => r.span_id)
      expect(spans, k).toEqual([...agentSpans].sort())
      if (values.length > 1) {
        severalRuns++
        expect(annotation.result!.explanation, k).toMatch(new RegExp(`^mean of ${values.length} runs: `))
      }
    }
    // The demo's multi-agent scenarios put several runs of a scorer in one trace.
    expect(severalRuns).toBeGreaterThan(0)

    // Per scorer, the trace annotations add up to the summary tracescore printed: as many scored
    // runs, and the same mean (the table rounds each row's mean to 2 decimals).
    const printed = printedSummary(result.stdout)
    expect(printed.length).toBeGreaterThan(0)
    for (const scorer of scorers) {
      const rows = printed.filter((r) => r.scorer === scorer)
      const ours = annotations.filter((a) => a.identifier === scorer)
      const scored = rows.reduce((n, r) => n + r.scored, 0)
      const counted = ours.reduce((n, a) => n + (a.metadata!.count as number), 0)
      expect(counted, scorer).toBe(scored)
      const printedMean = rows.reduce((sum, r) => sum + r.mean * r.scored, 0) / scored
      const annotatedMean =
        ours.reduce((sum, a) => sum + a.result!.score! * (a.metadata!.count as number), 0) / counted
      expect(Math.abs(annotatedMean - printedMean), scorer).toBeLessThanOrEqual(0.0051)
    }
  })
})
