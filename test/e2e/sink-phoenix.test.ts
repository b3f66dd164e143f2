import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { promisify } from 'node:util'
import { context, SpanKind, trace } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScoreRecord } from '../../src/model/index.ts'
import { createOtlpSink } from '../../src/sink/otlp-sink.ts'
import { createPhoenixAnnotationSink } from '../../src/sink/phoenix-annotation-sink.ts'
import { scoreSpanId } from '../../src/sink/score-span-id.ts'
import { tracescoreVersion } from '../../src/sink/tracescore-version.ts'
import { repoRoot } from '../helpers/cli.ts'
import {
  getSpanAnnotations,
  getTraceAnnotations,
  phoenixTracesEndpoint,
  phoenixUrl,
  waitForSpans,
} from '../helpers/phoenix.ts'

// A real Phoenix (scripts/phoenix-start.sh): the agent trace goes in over OTLP/HTTP protobuf as
// an instrumented agent would send it, then tracescore's sinks add the score spans and the span
// annotations, and Phoenix's REST API shows what it stored.

const run = promisify(execFile)

/** Starts or stops a Phoenix through the repo scripts; `port` other than 6006 is a private instance. */
function phoenixScript(script: 'phoenix-start.sh' | 'phoenix-stop.sh', port = 6006) {
  const env = { ...process.env, PHOENIX_PORT: String(port) } // the script picks the gRPC port per instance
  return run('bash', [`scripts/${script}`], { cwd: repoRoot, env })
}

/** Runs `body` with the Phoenix test helpers pointed at another Phoenix (they read PHOENIX_URL). */
async function withPhoenixUrl<T>(url: string, body: () => Promise<T>): Promise<T> {
  const saved = process.env.PHOENIX_URL
  process.env.PHOENIX_URL = url
  try {
    return await body()
  } finally {
    if (saved === undefined) delete process.env.PHOENIX_URL
    else process.env.PHOENIX_URL = saved
  }
}

/**
 * Sends one agent-run span, the way an instrumented agent exports it, and returns its ids; with
 * `parent`, as a child of that span (a second run in the same trace).
 */
async function sendAgentTrace(
  tracesEndpoint: string,
  parent?: { traceId: string; spanId: string },
): Promise<{ traceId: string; spanId: string }> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'support-agent-service' }),
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: tracesEndpoint }))],
  })
  const parentContext = parent
    ? trace.setSpanContext(context.active(), { ...parent, traceFlags: 1, isRemote: true })
    : undefined
  const span = provider.getTracer('e2e-agent').startSpan(
    'invoke_agent support-agent',
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'support-agent',
        'openinference.span.kind': 'AGENT',
      },
    },
    parentContext,
  )
  span.end()
  const { traceId, spanId } = span.spanContext()
  await provider.forceFlush()
  await provider.shutdown()
  return { traceId, spanId }
}

function records(run: { traceId: string; spanId: string }, tag: string): ScoreRecord[] {
  const base = {
    traceId: run.traceId,
    spanId: run.spanId,
    runId: `${run.traceId}:${run.spanId}`,
    agentName: 'support-agent',
    timestampMs: Date.now(),
  }
  return [
    {
      ...base,
      scorerId: `task-success-${tag}`,
      scorerName: `Task success ${tag}`,
      scorerKind: 'llm',
      score: 0.82,
      label: 'pass',
      reason: 'Resolved the order query in 2 tool calls',
      judge: { model: 'openai/gpt-5-mini', inputTokens: 812, outputTokens: 64, totalTokens: 876, calls: 1 },
      samplingRate: 0.5,
    },
    {
      ...base,
      scorerId: `tool-accuracy-${tag}`,
      scorerName: `Tool accuracy ${tag}`,
      scorerKind: 'code',
      error: { type: 'ScorerError', message: 'tool result missing' },
    },
  ]
}

beforeAll(async () => {
  // Reuses the Phoenix that scripts/test-all.sh started (or starts it), unless PHOENIX_URL points elsewhere.
  if (process.env.PHOENIX_URL === undefined) await phoenixScript('phoenix-start.sh')
})

describe('score spans and annotations in a real Phoenix', () => {
  let agent: { traceId: string; spanId: string }
  let scores: ScoreRecord[]
  let late: { traceId: string; spanId: string }
  let lateScores: ScoreRecord[]

  beforeAll(async () => {
    agent = await sendAgentTrace(phoenixTracesEndpoint())
    const tag = randomBytes(3).toString('hex')
    scores = records(agent, tag)
    const otlp = createOtlpSink({ endpoint: phoenixTracesEndpoint(), protocol: 'http/protobuf' })
    const annotations = createPhoenixAnnotationSink({
      url: phoenixUrl(),
      retry: { retries: 40, initialDelayMs: 250, maxDelayMs: 1000 },
    })
    await otlp.deliver(scores)
    // The annotations need the agent span stored; until then Phoenix answers 404 and the sink retries.
    await annotations.deliver(scores)
    // A replay writes the same span ids and upserts the same annotations.
    await otlp.deliver(scores)
    await annotations.deliver(scores)
    await otlp.close()
    // A second agent run in the same trace, delivered on its own later (a late run re-opened the
    // released trace): its scores join the trace annotations' runs instead of replacing them.
    late = await sendAgentTrace(phoenixTracesEndpoint(), agent)
    lateScores = records(late, tag).map((r) => (r.error ? r : { ...r, score: 0.4, label: 'fail' }))
    await annotations.deliver(lateScores)
    await annotations.deliver(lateScores) // and again: a replay of the late run changes nothing
  })

  it('stores the score spans in the run trace, parented to the agent span, with the evaluation attributes', async () => {
    const spans = await waitForSpans('default', { traceId: agent.traceId, minCount: 4 })
    // The agent span, its two score spans and the late run (its scores went to annotations only):
    // the replay added nothing.
    expect(spans.map((s) => s.context.span_id).sort()).toEqual(
      [
        agent.spanId,
        late.spanId,
        ...scores.map((s) => scoreSpanId(agent.traceId, agent.spanId, s.scorerId)),
      ].sort(),
    )
    const byId = new Map(spans.map((s) => [s.context.span_id, s]))
    expect(byId.get(agent.spanId)?.name).toBe('invoke_agent support-agent')

    const [ok, failed] = scores as [ScoreRecord, ScoreRecord]
    const okSpan = byId.get(scoreSpanId(agent.traceId, agent.spanId, ok.scorerId))!
    expect(okSpan).toBeDefined()
    expect(okSpan.name).toBe(`evaluation ${ok.scorerId}`)
    expect(okSpan.context.trace_id).toBe(agent.traceId)
    expect(okSpan.parent_id).toBe(agent.spanId)
    expect(okSpan.span_kind).toBe('EVALUATOR')
    expect(okSpan.attributes).toMatchObject({
      'gen_ai.evaluation.name': ok.scorerName,
      'gen_ai.evaluation.score.value': 0.82,
      'gen_ai.evaluation.score.label': 'pass',
      'gen_ai.evaluation.explanation': ok.reason,
      'tracescore.scorer.id': ok.scorerId,
      'tracescore.agent.name': 'support-agent',
      'tracescore.judge.model': 'openai/gpt-5-mini',
      'tracescore.judge.total_tokens': 876,
      'tracescore.version': tracescoreVersion,
    })
    expect(okSpan.events.map((e) => e.name)).toEqual(['gen_ai.evaluation.result'])
    expect(okSpan.events[0]?.attributes['gen_ai.evaluation.score.value']).toBe(0.82)

    const failedSpan = byId.get(scoreSpanId(agent.traceId, agent.spanId, failed.scorerId))!
    expect(failedSpan.parent_id).toBe(agent.spanId)
    expect(failedSpan.status_code).toBe('ERROR')
    expect(failedSpan.status_message).toBe('tool result missing')
    expect(failedSpan.attributes['error.type']).toBe('ScorerError')
  })

  it('stores one trace annotation per scorer: the mean over both runs, with their count and the runs', async () => {
    const annotations = await getTraceAnnotations('default', [agent.traceId])
    const ours = annotations.filter((a) => scores.some((s) => s.scorerId === a.identifier))
    expect(ours).toHaveLength(2) // one per scorer: the replays and the late run updated them
    const llm = ours.find((a) => a.identifier === scores[0]!.scorerId)!
    expect(llm).toMatchObject({
      trace_id: agent.traceId,
      name: scores[0]!.scorerName,
      annotator_kind: 'LLM',
      source: 'API',
      metadata: { source: 'tracescore', scorer_id: scores[0]!.scorerId, count: 2 },
    })
    expect(llm.result!.score).toBeCloseTo((0.82 + 0.4) / 2, 12)
    expect(llm.result!.label).toBeNull() // pass and fail: no shared label, no threshold
    const runs = [agent, late].map((a) => a.spanId).sort()
    expect(llm.result!.explanation).toBe(
      `mean of 2 runs: ${runs.map((id) => `${id}: ${id === agent.spanId ? 0.82 : 0.4}`).join(', ')}`,
    )
    expect((llm.metadata!.runs as { span_id: string }[]).map((r) => r.span_id)).toEqual(runs)
    const code = ours.find((a) => a.identifier === scores[1]!.scorerId)!
    expect(code).toMatchObject({ annotator_kind: 'CODE', metadata: { count: 0 } })
    expect(code.result).toMatchObject({ score: null, label: 'error' })
    expect(code.result!.explanation).toMatch(/^no run scored: /)
  })

  it('stores one annotation per scorer on the agent span, upserted by the replay', async () => {
    const annotations = await getSpanAnnotations('default', [agent.spanId])
    const ours = annotations.filter((a) => scores.some((s) => s.scorerId === a.identifier))
    expect(ours).toHaveLength(2)
    const llm = ours.find((a) => a.annotator_kind === 'LLM')!
    expect(llm).toMatchObject({
      span_id: agent.spanId,
      name: scores[0]!.scorerName,
      identifier: scores[0]!.scorerId,
      result: { score: 0.82, label: 'pass', explanation: scores[0]!.reason },
    })
    expect(llm.metadata).toMatchObject({ source: 'tracescore', run_id: scores[0]!.runId })
    const code = ours.find((a) => a.annotator_kind === 'CODE')!
    expect(code.result).toMatchObject({ label: 'error', explanation: 'ScorerError: tool result missing' })
  })
})

describe('OTLP/JSON to Phoenix', () => {
  it('is refused with 415 and the sink gives up at once, naming the protocol to use', async () => {
    const sink = createOtlpSink({ endpoint: phoenixTracesEndpoint(), protocol: 'http/json' })
    const agent = { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') }
    await expect(sink.deliver(records(agent, 'json'))).rejects.toThrow(/415.*http\/protobuf/)
    expect(sink.stats()).toMatchObject({ delivered: 0, failed: 2, retries: 0 })
    await sink.close()
  })
})

describe('Phoenix down while the sink retries', () => {
  // A private Phoenix on another port, so that stopping it disturbs no other test.
  const port = 6026
  const baseUrl = `http://127.0.0.1:${port}`
  afterAll(async () => {
    await phoenixScript('phoenix-stop.sh', port)
  })

  it('loses nothing: delivery resolves after Phoenix is back, with every score stored', async () => {
    await phoenixScript('phoenix-start.sh', port)
    const agent = await sendAgentTrace(`${baseUrl}/v1/traces`)
    await withPhoenixUrl(baseUrl, () => waitForSpans('default', { traceId: agent.traceId }))
    await phoenixScript('phoenix-stop.sh', port)

    const scores = records(agent, 'outage')
    const retry = { retries: 200, initialDelayMs: 250, maxDelayMs: 1000 }
    const otlp = createOtlpSink({
      endpoint: `${baseUrl}/v1/traces`,
      protocol: 'http/protobuf',
      timeoutMs: 1000,
      retry,
    })
    const annotations = createPhoenixAnnotationSink({ url: baseUrl, retry })
    const delivered = Promise.all([otlp.deliver(scores), annotations.deliver(scores)])
    let settled = false
    const mark = () => {
      settled = true
    }
    void delivered.then(mark, mark)
    // Keep Phoenix down for a while (bounded), then bring it back.
    await new Promise((r) => setTimeout(r, 10_000))
    expect(settled).toBe(false)
    expect(otlp.stats().retries).toBeGreaterThan(0)
    expect(annotations.stats().retries).toBeGreaterThan(0)
    await phoenixScript('phoenix-start.sh', port)
    await delivered
    await otlp.close()

    expect(otlp.stats()).toMatchObject({ delivered: 2, failed: 0 })
    expect(annotations.stats()).toMatchObject({ delivered: 2, failed: 0 })
    const expectedIds = [
      agent.spanId,
      ...scores.map((s) => scoreSpanId(agent.traceId, agent.spanId, s.scorerId)),
    ]
    await withPhoenixUrl(baseUrl, async () => {
      const spans = await waitForSpans('default', { traceId: agent.traceId, minCount: 3 })
      expect(spans.map((s) => s.context.span_id).sort()).toEqual(expectedIds.sort())
      const stored = await getSpanAnnotations('default', [agent.spanId])
      expect(stored.map((a) => a.identifier).sort()).toEqual(scores.map((s) => s.scorerId).sort())
      const traced = await getTraceAnnotations('default', [agent.traceId])
      expect(traced.map((a) => a.identifier).sort()).toEqual(scores.map((s) => s.scorerId).sort())
    })
  })
})
