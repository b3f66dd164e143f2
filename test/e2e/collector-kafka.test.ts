import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoJudgePolicy } from '../../src/demo/demo-judge-policy.ts'
import { startScriptedJudge } from '../../src/demo/scripted-judge-server.ts'
import { registerCompressionCodecs } from '../../src/ingest/codecs.ts'
import { decodeOtlpTraces } from '../../src/ingest/decode/index.ts'
import { freePort, repoRoot, type ServiceProcess, startService } from '../helpers/cli.ts'
import { writeServiceConfig } from '../helpers/fault-process.ts'
import { groupOffsets } from '../helpers/fault-traffic.ts'
import { getJaegerTrace, jaegerOtlpUrl, jaegerParent, jaegerTag, jaegerUrl } from '../helpers/jaeger.ts'
import { createTopic, deleteTopics, readTopic, testBrokers, testKafka, uniqueName } from '../helpers/kafka.ts'
import { type LiveTraffic, runLiveAgents } from '../helpers/live-agents.ts'
import { type Collector, otelcolBinary, startCollector } from '../helpers/otelcol.ts'
import { getSpans, phoenixUrl, phoenixVersion, waitForSpans } from '../helpers/phoenix.ts'
import { until } from '../helpers/poll.ts'

// The chain users run: instrumented JavaScript agents export OTLP/HTTP to the OpenTelemetry
// Collector (built from the upstream Go modules, tools/otelcol), whose kafka exporter writes one
// trace per record (partition_traces_by_id) with each compression and with otlp_json; `tracescore
// run` (spawned as a user runs it) scores from Kafka and exports its score spans over OTLP back to
// the same Collector, which forwards agents and scores alike to Phoenix and Jaeger and, as many
// real set-ups do, also back into the span topic: those score spans must not be scored again.

registerCompressionCodecs()
const execFileP = promisify(execFile)

interface Route {
  /** The Collector component name of the route: <encoding>-<compression>. */
  name: string
  encoding: 'otlp_proto' | 'otlp_json'
  compression: 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd'
  port: number
  topic: string
  service?: ServiceProcess
  traffic?: LiveTraffic
  /** Filled in by the tests, for the closing note. */
  result: { phoenix: number; jaeger: number; deadLetters?: number; lag?: number }
}

const scorers = ['answered', 'helpfulness']
const routes: Route[] = [
  ...(['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const).map((compression) => ({
    name: `otlp_proto-${compression}`,
    encoding: 'otlp_proto' as const,
    compression,
  })),
  { name: 'otlp_json-none', encoding: 'otlp_json' as const, compression: 'none' as const },
].map((r) => ({
  ...r,
  port: 0,
  topic: uniqueName(`e2e_otelcol_${r.encoding}_${r.compression}`),
  result: { phoenix: 0, jaeger: 0 },
}))
const project = `collector-e2e-${randomUUID().slice(0, 8)}`

/** One receiver and one pipeline per route: OTLP in, Kafka + Phoenix + Jaeger out. */
function collectorConfig(): string {
  const lines = ['receivers:']
  for (const r of routes)
    lines.push(`  otlp/${r.name}:`, `    protocols: { http: { endpoint: "127.0.0.1:${r.port}" } }`)
  lines.push('processors:', '  batch: { timeout: 200ms }', 'exporters:')
  for (const r of routes) {
    lines.push(
      `  kafka/${r.name}:`,
      `    brokers: ${JSON.stringify(testBrokers())}`,
      `    traces: { topic: ${r.topic}, encoding: ${r.encoding} }`,
      '    partition_traces_by_id: true',
      `    producer: { compression: ${r.compression} }`,
    )
  }
  lines.push(
    '  otlp_http/phoenix:',
    `    endpoint: ${phoenixUrl()}`,
    `    headers: { x-project-name: ${project} }`,
    '  otlp_http/jaeger:',
    `    endpoint: ${jaegerOtlpUrl()}`,
    'service:',
    '  telemetry: { metrics: { level: none }, logs: { level: warn } }',
    '  pipelines:',
  )
  for (const r of routes) {
    lines.push(
      `    traces/${r.name}:`,
      `      receivers: [otlp/${r.name}]`,
      '      processors: [batch]',
      `      exporters: [kafka/${r.name}, otlp_http/phoenix, otlp_http/jaeger]`,
    )
  }
  return `${lines.join('\n')}\n`
}

/** Every record of a topic, decoded: the spans the Collector wrote. */
async function topicSpans(r: Route) {
  const offsets = await testKafka().admin()
  await offsets.connect()
  const watermarks = await offsets.fetchTopicOffsets(r.topic).finally(() => offsets.disconnect())
  const count = watermarks.reduce((n, p) => n + Number(p.high) - Number(p.low), 0)
  const records = await readTopic(testKafka(), r.topic, count, 60_000)
  return records.flatMap((record) => decodeOtlpTraces(record.value!, r.encoding))
}

/** Records between the group's committed offsets and the high watermarks of the route's topic. */
async function lag(r: Route): Promise<number> {
  const admin = testKafka().admin()
  await admin.connect()
  const watermarks = await admin.fetchTopicOffsets(r.topic).finally(() => admin.disconnect())
  const committed = await groupOffsets(testKafka(), r.topic, r.topic)
  return watermarks.reduce((n, p) => n + Number(p.high) - Math.max(0, committed.get(p.partition) ?? 0), 0)
}

/** The version of a module that tools/<tool>/go.mod requires. */
const goModVersion = (tool: string, module: string) =>
  readFileSync(`${repoRoot}tools/${tool}/go.mod`, 'utf8').match(new RegExp(`${module} (v\\S+)`))![1]

const runKey = (traceId: string, spanId: string) => `${traceId}:${spanId}`

describe('agents → OpenTelemetry Collector → Kafka → tracescore run → Collector → Phoenix and Jaeger', () => {
  let judge: Awaited<ReturnType<typeof startScriptedJudge>>
  let collector: Collector
  const versions: string[] = []

  beforeAll(async () => {
    judge = await startScriptedJudge(demoJudgePolicy)
    for (const r of routes) {
      r.port = await freePort()
      await createTopic(testKafka(), r.topic, 3)
    }
    versions.push(
      `${(await execFileP(await otelcolBinary(), ['--version'])).stdout.trim()} (contrib ${goModVersion('otelcol', 'opentelemetry-collector-contrib/exporter/kafkaexporter')})`,
      `Jaeger ${goModVersion('jaeger', 'jaegertracing/jaeger')} at ${jaegerUrl()}`,
      `Phoenix ${await phoenixVersion()} at ${phoenixUrl()} (project ${project})`,
    )
    collector = await startCollector(
      project,
      collectorConfig(),
      routes.map((r) => r.port),
    )
    const preamble = `import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { createHelpfulnessScorer } from '../../config/scorers/helpfulness.ts'
const judge = createOpenAICompatible({ name: 'scripted', baseURL: '${judge.baseURL}' })('scripted-judge')`
    await Promise.all(
      routes.map(async (r) => {
        const config = writeServiceConfig(r.topic, {
          brokers: testBrokers(),
          topic: r.topic,
          groupId: r.topic,
          deadLetterTopic: `${r.topic}_dlq`,
          encoding: r.encoding,
          otlpUrl: `http://127.0.0.1:${r.port}/v1/traces`,
          settleMs: 1000,
          preamble,
          scorers:
            '{ answered: { scorer: answeredScorer }, helpfulness: { scorer: createHelpfulnessScorer(judge) } }',
        })
        r.service = await startService(config, { readyTimeoutMs: 180_000 })
      }),
    )
    for (const r of routes) r.traffic = await runLiveAgents(`http://127.0.0.1:${r.port}`, `agents-${r.name}`)
  })

  afterAll(async () => {
    const started = routes.filter((r) => r.service)
    const exits = await Promise.all(started.map((r) => r.service!.stop()))
    await collector?.stop()
    await judge?.close()
    await deleteTopics(
      testKafka(),
      routes.flatMap((r) => [r.topic, `${r.topic}_dlq`]),
    )
    // The closing note: the versions that ran and what each route delivered.
    const cell = (v: unknown, width: number) => String(v ?? '?').padStart(width)
    const rows = routes.map(
      (r) =>
        `${r.name.padEnd(18)}${cell(r.traffic?.runs.length, 9)}${cell(r.result.phoenix, 19)}${cell(r.result.jaeger, 18)}${cell(r.result.deadLetters, 14)}${cell(r.result.lag, 11)}`,
    )
    console.log(
      [
        `\nCollector e2e: ${versions.join(', ')}`,
        `${'route'.padEnd(18)}runs sent  scored in Phoenix  scored in Jaeger  dead letters  final lag`,
        ...rows,
      ].join('\n'),
    )
    expect(exits).toEqual(started.map(() => 0))
  })

  it.each(routes.map((r) => [r.name, r] as const))(
    '%s: every run is scored, parented to its agent span, in Phoenix',
    async (_name, r) => {
      const { runs, traceIds } = r.traffic!
      expect(runs.length).toBeGreaterThanOrEqual(10)
      const scores = await waitForSpans(project, {
        traceId: traceIds,
        name: scorers.map((s) => `evaluation ${s}`),
        minCount: runs.length * scorers.length,
        timeoutMs: 240_000,
      })
      const agents = await waitForSpans(project, { traceId: traceIds, spanId: runs.map((x) => x.spanId) })
      const stored = new Set(agents.map((a) => runKey(a.context.trace_id, a.context.span_id)))
      for (const run of runs) {
        const mine = scores.filter((s) => s.context.trace_id === run.traceId && s.parent_id === run.spanId)
        expect(mine.map((s) => s.name).sort()).toEqual(scorers.map((s) => `evaluation ${s}`).sort())
        for (const score of mine) {
          expect(score.attributes['gen_ai.evaluation.score.value']).toEqual(expect.any(Number))
          expect(score.attributes['tracescore.agent.name']).toBe(run.agentName)
        }
        expect(stored.has(runKey(run.traceId, run.spanId)), `agent span of ${run.agentName}`).toBe(true)
        r.result.phoenix++
      }
      expect(scores).toHaveLength(runs.length * scorers.length)
    },
  )

  it.each(routes.map((r) => [r.name, r] as const))(
    '%s: every run is scored in Jaeger, the score value a float64',
    async (_name, r) => {
      const { runs } = r.traffic!
      for (const run of runs) {
        let children: NonNullable<Awaited<ReturnType<typeof getJaegerTrace>>>['spans'] = []
        let agent: (typeof children)[number] | undefined
        await until(
          async () => {
            const trace = await getJaegerTrace(run.traceId)
            agent = trace?.spans.find((s) => s.spanID === run.spanId)
            children =
              trace?.spans.filter(
                (s) => jaegerParent(s) === run.spanId && s.operationName.startsWith('evaluation '),
              ) ?? []
            return agent !== undefined && children.length >= scorers.length
          },
          120_000,
          () =>
            `Jaeger trace ${run.traceId}: agent span ${agent ? 'found' : 'missing'}, ${children.length} score span(s)`,
          500,
        )
        expect(agent!.operationName).toMatch(/^invoke_agent/)
        expect(children.map((s) => s.operationName).sort()).toEqual(
          scorers.map((s) => `evaluation ${s}`).sort(),
        )
        for (const span of children) {
          const scorer = span.operationName.slice('evaluation '.length)
          expect(jaegerTag(span, 'gen_ai.evaluation.name')).toMatchObject({ type: 'string' })
          expect(jaegerTag(span, 'tracescore.scorer.id')).toMatchObject({ type: 'string', value: scorer })
          // A double by the semantic conventions, also for a whole score (answered gives 0 or 1).
          expect(jaegerTag(span, 'gen_ai.evaluation.score.value')).toMatchObject({
            type: 'float64',
            value: expect.any(Number),
          })
          if (scorer === 'helpfulness') {
            expect(jaegerTag(span, 'gen_ai.evaluation.explanation')?.value).toMatch(/^Scripted judge:/)
          }
        }
        r.result.jaeger++
      }
    },
  )

  it.each(routes.map((r) => [r.name, r] as const))(
    '%s: score spans fed back into the span topic are consumed, not scored again; nothing dead-lettered',
    async (_name, r) => {
      const { runs } = r.traffic!
      const expected = new Set(runs.map((x) => runKey(x.traceId, x.spanId)))
      // The Collector's loop: the topic holds every run's score spans as well as its agent spans.
      await until(
        async () => {
          const looped = (await topicSpans(r)).filter((s) => s.name.startsWith('evaluation '))
          return new Set(looped.map((s) => runKey(s.traceId, s.parentSpanId ?? ''))).size === expected.size
        },
        120_000,
        () => `score spans of all ${expected.size} runs in ${r.topic}`,
        1000,
      )
      await until(
        async () => (await lag(r)) === 0,
        120_000,
        () => `${r.topic} consumed to its high watermark`,
        500,
      )
      const service = r.service!
      const metric = async (name: string) => (await service.metric(name)) ?? 0
      const spans = await topicSpans(r)
      expect(await metric('tracescore_spans_total')).toBeGreaterThanOrEqual(spans.length)
      expect(await metric('tracescore_agent_runs_total')).toBe(runs.length)
      expect(await metric('tracescore_decisions_total')).toBe(runs.length * scorers.length)
      r.result.deadLetters = await metric('tracescore_dead_letters_total')
      expect(r.result.deadLetters).toBe(0)
      r.result.lag = await lag(r)
      expect(r.result.lag).toBe(0)
      // Jaeger and Phoenix still hold exactly one score span per run and scorer.
      const stored = await getSpans(project, {
        traceId: r.traffic!.traceIds,
        name: scorers.map((s) => `evaluation ${s}`),
      })
      expect(stored).toHaveLength(runs.length * scorers.length)
    },
  )
})
