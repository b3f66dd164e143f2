import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.ts'
import { getSpans, type PhoenixSpan, phoenixUrl, waitForSpans } from '../helpers/phoenix.ts'

const scorers = ['answered', 'tool-success', 'helpfulness']
const day = 24 * 3600_000

// `npm run demo` with Phoenix running, then a user opens Phoenix: its default view shows the last
// 7 days. The demo replays recordings made months ago, so their spans must be moved to the present
// (the scores are stamped now) for the runs to show up, each with its scores under it.
describe('tracescore demo → Phoenix', () => {
  it('shows every replayed run in the present, with its scores after it', async () => {
    const started = new Date()
    const result = await runCli(['demo', '--runs', '8'], {
      env: { PHOENIX_URL: phoenixUrl() },
      timeoutMs: 240_000,
    })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain(`Phoenix at ${phoenixUrl()}: score spans go there`)
    const scoreCount = Number(result.stdout.match(/\n(\d+) scores for 8 traces; 0 failed scorings\./)![1])
    expect(scoreCount).toBeGreaterThanOrEqual(8 * scorers.length)

    // The demo's score spans: written while it ran (e2e files run one at a time).
    const scores = await waitForSpans('default', {
      name: scorers.map((s) => `evaluation ${s}`),
      startTime: started,
      endTime: new Date(),
      minCount: scoreCount,
      timeoutMs: 60_000,
    })
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
})
