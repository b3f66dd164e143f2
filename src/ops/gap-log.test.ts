import { describe, expect, it } from 'vitest'
import { answeredScorer } from '../../config/scorers/answered.ts'
import { resolveConfig } from '../config/define-config.ts'
import { scoreTrace } from '../score-trace.ts'
import { span } from '../transform/testing/span-builder.ts'
import { createGapLog } from './gap-log.ts'
import { createMetrics } from './metrics.ts'
import { captureLogs } from './testing/capture-logs.ts'

const { scorers } = resolveConfig({ scorers: { answered: { scorer: answeredScorer } } }, {})

/** A GenAI agent run recorded with content capture off: structure, no text. */
function contentOff(traceId: string) {
  return [
    span({
      id: 'a',
      traceId,
      end: 50,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support' },
    }),
    span({
      id: 'm',
      traceId,
      parent: 'a',
      start: 1,
      end: 20,
      attributes: { 'gen_ai.operation.name': 'chat' },
    }),
  ]
}

/** A bare model call: GenAI activity, no agent. */
function bareModelCall(traceId: string) {
  return [
    span({
      id: 'm',
      traceId,
      attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt' },
    }),
  ]
}

/** Spans that look like GenAI telemetry of a convention no reader knows. */
function unknownConvention(traceId: string) {
  return [span({ id: 'x', traceId, attributes: { 'llm.vendor': 'acme', 'llm.prompt_text': 'hi' } })]
}

const T = (n: number) => n.toString(16).padStart(32, '0')

describe('no silent gaps', () => {
  it('counts a content-off run per missing part, and its not-scorable decision per cause', async () => {
    const metrics = createMetrics()
    const scores = await scoreTrace(contentOff(T(1)), { scorers, metrics })
    expect(scores.decisions.map((d) => d.outcome)).toEqual(['not-scorable'])
    const text = await metrics.registry.metrics()
    expect(text).toContain('tracescore_run_parts_unrecorded_total{part="finalText",convention="genai"} 1')
    expect(text).toContain('tracescore_run_parts_unrecorded_total{part="input",convention="genai"} 1')
    expect(text).toContain('tracescore_not_scorable_total{scorer="answered",cause="finalText"} 1')
    expect(text).not.toContain('tracescore_score_value_count{scorer="answered"')
  })

  it('counts GenAI traces that gave no run, per reason and convention', async () => {
    const metrics = createMetrics()
    expect((await scoreTrace(bareModelCall(T(2)), { scorers, metrics })).noRun).toEqual({
      reason: 'no-agent-span',
      conventions: ['genai'],
    })
    expect((await scoreTrace(unknownConvention(T(3)), { scorers, metrics })).noRun).toEqual({
      reason: 'unknown-convention',
      conventions: ['unknown'],
    })
    const text = await metrics.registry.metrics()
    expect(text).toContain(
      'tracescore_traces_without_runs_total{reason="no-agent-span",convention="genai"} 1',
    )
    expect(text).toContain(
      'tracescore_traces_without_runs_total{reason="unknown-convention",convention="unknown"} 1',
    )
  })

  it('logs each cause once, however often it occurs', async () => {
    const { lines, logger } = captureLogs()
    const log = createGapLog(logger)
    for (let n = 10; n < 13; n++) log(await scoreTrace(contentOff(T(n)), { scorers }), T(n))
    for (let n = 20; n < 23; n++) log(await scoreTrace(bareModelCall(T(n)), { scorers }), T(n))
    await new Promise((resolve) => setImmediate(resolve))
    expect(lines.map((line) => [line.level, line.traceId])).toEqual([
      [40, T(10)],
      [40, T(20)],
    ])
    expect(lines[0]).toMatchObject({ convention: 'genai', unrecorded: ['input', 'system', 'finalText'] })
    expect(lines[1]).toMatchObject({ reason: 'no-agent-span', conventions: ['genai'] })
    expect(String(lines[1]!.msg)).toContain('tracescore inspect')
  })
})
