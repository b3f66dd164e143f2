/**
 * Is the Collector the cheaper place to drop traces without an agent (issue 29 item 3)? On the
 * collector bench's mixed traffic (1 agent trace in 10, `mixedTraffic`) written as tier 1 of
 * deploy/otelcol-agent-only-tier1.yaml writes it (one trace per record, keyed by trace id, 8
 * partitions), per round:
 * - tier 2 (deploy/otelcol-agent-only-tier2.yaml as shipped, decision_wait 2 s) reads it and writes
 *   the agent traces to a second topic;
 * - `tracescore run` (defaults, the two example code scorers, scores to a null OTLP receiver)
 *   reads all of it: the baseline, tracescore dropping plain traces itself;
 * - `tracescore run` reads tier 2's output.
 * Each subject starts on an empty topic and idles before the records are produced, so its start-up
 * is not counted; CPU (utime + stime, /proc) from then until its group committed the end (tier 2:
 * and its output stopped growing). Figures per input span; the two tracescore subjects alternate
 * their order. The ratio: (tier 2 + tracescore on its output) / tracescore on everything; below 1
 * the route saves CPU. Broker CPU (the route writes and reads one more topic) is not counted.
 * Run alone with `npx tsx bench/agent-route.bench.ts` (`AGENT_ROUTE_SEEDS`, 1,000 traces each).
 */

import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { Kafka } from 'kafkajs'
import { registerCompressionCodecs } from '../src/ingest/codecs.ts'
import { byTrace, encodeOtlpProto } from '../src/ingest/testing/agent-traffic.ts'
import { repoRoot, startService } from '../test/helpers/cli.ts'
import { writeServiceConfig } from '../test/helpers/fault-process.ts'
import {
  createTopic,
  deleteTopics,
  endOffsets,
  fullyCommitted,
  readTopic,
  testBrokers,
  testKafka,
  uniqueName,
} from '../test/helpers/kafka.ts'
import { mixedTraffic } from '../test/helpers/mixed-traffic.ts'
import { otelcolMissing, startCollector } from '../test/helpers/otelcol.ts'
import { cpuMicros } from './collector.bench.ts'
import { ensureBroker } from './pipeline.bench.ts'

registerCompressionCodecs()

const PARTITIONS = 8
/** Subjects idle this long after start before the records come (start-up CPU settles). */
const IDLE_MS = 5_000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A trace-keyed record, as tier 1 writes it. */
type KeyedRecord = { key: string; value: Buffer }

/** One subject's consumption: CPU µs per input span and wall seconds. */
interface Measure {
  cpuUsPerSpan: number
  seconds: number
}

/** One row of this bench. */
export interface AgentRouteRow {
  case: string
  cpuUsPerInputSpan?: number
  rounds?: string
  ratio?: string
  target?: string
  met?: string
}

async function produce(kafka: Kafka, topic: string, records: KeyedRecord[]): Promise<void> {
  const producer = kafka.producer()
  await producer.connect()
  for (let i = 0; i < records.length; i += 500)
    await producer.send({ topic, messages: records.slice(i, i + 500) })
  await producer.disconnect()
}

const total = async (kafka: Kafka, topic: string) =>
  [...(await endOffsets(kafka, topic)).values()].reduce((n, o) => n + Number(o), 0)

/** Tier 2 as shipped on `input`, writing to `output`; resolves once it committed and its output settled. */
async function tier2(kafka: Kafka, input: string, output: string, records: KeyedRecord[], spans: number) {
  const group = uniqueName('bench-tier2')
  const settings = {
    'receivers::kafka::brokers': testBrokers(),
    'receivers::kafka::group_id': group,
    'receivers::kafka::traces::topics': [input],
    'processors::tail_sampling::decision_wait': '2s',
    'exporters::kafka::brokers': testBrokers(),
    'exporters::kafka::traces::topic': output,
  }
  const args = Object.entries(settings).map(([k, v]) => `--config=yaml:${k}: ${JSON.stringify(v)}`)
  args.push('--config=yaml:service::telemetry::metrics::level: none')
  const config = readFileSync(`${repoRoot}deploy/otelcol-agent-only-tier2.yaml`, 'utf8')
  const collector = await startCollector(group, config, [], args)
  await sleep(IDLE_MS)
  const pid = collector.child.pid!
  const [cpu0, t0] = [cpuMicros(pid), performance.now()]
  await produce(kafka, input, records)
  while (!(await fullyCommitted(kafka, group, input))) await sleep(200)
  let written = -1
  for (let now = await total(kafka, output); now !== written; now = await total(kafka, output)) {
    written = now
    await sleep(3_000) // beyond decision_wait: the last decisions are out
  }
  const measure = {
    cpuUsPerSpan: (cpuMicros(pid) - cpu0) / spans,
    seconds: (performance.now() - t0) / 1000 - 3,
  }
  // Stopping decides what it still holds (a trace decided late on a busy machine): count after it.
  await collector.stop()
  return { measure, written: await total(kafka, output) }
}

/** `tracescore run` on `topic`, fed `records` once it idles; CPU per span of the whole input (`spans`). */
async function tracescore(
  kafka: Kafka,
  topic: string,
  records: KeyedRecord[],
  spans: number,
  otlpUrl: string,
) {
  const group = uniqueName('bench-route')
  const config = writeServiceConfig(group, {
    brokers: testBrokers(),
    topic,
    groupId: group,
    deadLetterTopic: `${topic}_dlq`,
    otlpUrl,
    defaultAssembly: true,
  })
  const service = await startService(config, { readyTimeoutMs: 180_000 })
  await sleep(IDLE_MS)
  const [cpu0, t0] = [cpuMicros(service.pid), performance.now()]
  await produce(kafka, topic, records)
  while (!(await fullyCommitted(kafka, group, topic))) await sleep(200)
  const measure: Measure = {
    cpuUsPerSpan: (cpuMicros(service.pid) - cpu0) / spans,
    seconds: (performance.now() - t0) / 1000,
  }
  const runs = (await service.metric('tracescore_agent_runs_total')) ?? 0
  await service.stop()
  return { measure, runs }
}

/**
 * createTopic, tried again: on the shared broker under load, kafkajs's wait for the new
 * partitions' leaders sometimes gives up (UNKNOWN_TOPIC_OR_PARTITION) though they come.
 */
async function createTopicRetrying(kafka: Kafka, topic: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await createTopic(kafka, topic, PARTITIONS)
    } catch (error) {
      if (attempt >= 5) throw error
      await sleep(2_000)
    }
  }
}

/** What one round measured. */
interface Round {
  tier2: Measure
  all: Measure
  kept: Measure
  /** Agent runs tracescore found reading everything and reading tier 2's output. */
  runs: [number, number]
}

/** One round: tier 2, then tracescore on everything and on tier 2's output (in that order or the other). */
async function round(
  kafka: Kafka,
  records: KeyedRecord[],
  spans: number,
  otlpUrl: string,
  allFirst: boolean,
) {
  const names = ['all', 'out', 'ts_all', 'ts_kept'].map((p) => uniqueName(`bench-route-${p}`))
  const [input, output, all, kept] = names as [string, string, string, string]
  for (const t of names) await createTopicRetrying(kafka, t)
  try {
    const t2 = await tier2(kafka, input, output, records, spans)
    const agentOnly = (await readTopic(kafka, output, t2.written, 120_000)).map((r) => ({
      key: r.key!,
      value: r.value!,
    }))
    const runAll = () => tracescore(kafka, all, records, spans, otlpUrl)
    const runKept = () => tracescore(kafka, kept, agentOnly, spans, otlpUrl)
    const first = allFirst ? await runAll() : await runKept()
    const second = allFirst ? await runKept() : await runAll()
    const [a, k] = allFirst ? [first, second] : [second, first]
    const result: Round = { tier2: t2.measure, all: a.measure, kept: k.measure, runs: [a.runs, k.runs] }
    return result
  } finally {
    await deleteTopics(kafka, [...names, `${all}_dlq`, `${kept}_dlq`])
  }
}

/** The mixed traffic of `seeds` seeds as trace-keyed records, and its span count. */
function traffic(seeds: number): { records: KeyedRecord[]; spans: number } {
  const records: KeyedRecord[] = []
  let spans = 0
  for (let seed = 0; seed < seeds; seed++) {
    for (const [key, trace] of byTrace(mixedTraffic(30_001 + seed))) {
      records.push({ key, value: encodeOtlpProto(trace) })
      spans += trace.length
    }
  }
  return { records, spans }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** Runs the rounds and returns the rows: each subject's median, and the route's ratio. */
export async function run(options: { rounds?: number; seeds?: number } = {}): Promise<AgentRouteRow[]> {
  const missing = await otelcolMissing()
  if (missing !== undefined) return [{ case: `agent route: skipped (${missing})`, met: 'skipped' }]
  ensureBroker()
  const kafka = testKafka('bench-agent-route')
  const { records, spans } = traffic(options.seeds ?? Number(process.env.AGENT_ROUTE_SEEDS ?? 40))
  const sink = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end())
  })
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve))
  const otlpUrl = `http://127.0.0.1:${(sink.address() as { port: number }).port}/v1/traces`
  const rounds: Round[] = []
  for (let i = 0; i < (options.rounds ?? 3); i++)
    rounds.push(await round(kafka, records, spans, otlpUrl, i % 2 === 0))
  sink.close()
  const row = (name: string, pick: (r: Round) => Measure): AgentRouteRow => ({
    case: `${name} (${spans.toLocaleString('en-US')} spans, 1 agent trace in 10)`,
    cpuUsPerInputSpan: median(rounds.map((r) => pick(r).cpuUsPerSpan)),
    rounds: rounds
      .map((r) => `${pick(r).cpuUsPerSpan.toFixed(1)} µs, ${pick(r).seconds.toFixed(1)} s`)
      .join('; '),
  })
  const ratios = rounds.map((r) => (r.tier2.cpuUsPerSpan + r.kept.cpuUsPerSpan) / r.all.cpuUsPerSpan)
  const ratio = median(ratios)
  const runs = rounds.map((r) => r.runs.join('/')).join(', ')
  return [
    row('tracescore run on all traffic (baseline)', (r) => r.all),
    row('tier 2 Collector (tail sampling)', (r) => r.tier2),
    row("tracescore run on tier 2's output", (r) => r.kept),
    {
      case: `route / baseline CPU (agent runs found, all/kept: ${runs})`,
      ratio: `${ratio.toFixed(2)}x (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})`,
      target: '< 1: the route saves CPU',
      met: ratio < 1 ? 'yes' : 'no',
    },
  ]
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await run())
