/**
 * Replay benchmark (not a CI test): `tracescore replay --from 0` (the built CLI, as a user runs
 * it) over a topic of 2 million spans (400,000 agent runs, one OTLP protobuf record each), scored
 * by the two code scorers and exported over OTLP to a local receiver. Reports the spans per
 * second and the resident memory of the replay process sampled along the way: it must stay flat
 * whatever the range (the range streams through the assembler and delivery queue, bounded by
 * backpressure), where the replay before held the whole range and stopped at 1 million spans.
 * Run alone with `npx tsx bench/replay.bench.ts` (needs the broker and `npm run build`).
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { withFreshIds } from '../src/demo/traffic.ts'
import { repoRoot, writeTempFile } from '../test/helpers/cli.ts'
import { startOtlpReceiver } from '../test/helpers/fault-otlp-receiver.ts'
import { makeRuns } from '../test/helpers/fault-traffic.ts'
import { createTopic, deleteTopics, testBrokers, testKafka, uniqueName } from '../test/helpers/kafka.ts'
import { ensureBroker } from './pipeline.bench.ts'

/** One row of the replay benchmark. */
export interface ReplayBenchRow {
  case: string
  spans: number
  records: number
  seconds: number
  spansPerSec: number
  /** Resident memory of the replay process when 10%, 20%, ... 100% of the records were read. */
  rssMiBAtTenths: string
  /** Peak resident memory (VmHWM). */
  peakRssMiB: number
  /** Highest RSS in the second half of the range / RSS at half: about 1 when memory is flat. */
  secondHalfGrowth: number
  met: string
}

const PARTITIONS = 4

/** Produces `records` one-run records (5 spans each), cycling 2,000 templates under fresh trace ids. */
async function fill(topic: string, records: number): Promise<number> {
  const kafka = testKafka('bench-replay')
  await createTopic(kafka, topic, PARTITIONS)
  const templates = makeRuns(2_000, 9).map((run) => ({
    name: run.traceId,
    payload: run.value,
    traceIds: [run.traceId],
  }))
  const producer = kafka.producer()
  await producer.connect()
  let bytes = 0
  for (let i = 0; i < records; i += 1_000) {
    const messages = Array.from({ length: Math.min(1_000, records - i) }, (_, k) => {
      const { payload, traceIds } = withFreshIds(templates[(i + k) % templates.length]!)
      bytes += payload.length
      return { key: traceIds[0]!, value: payload, partition: (i + k) % PARTITIONS }
    })
    await producer.send({ topic, acks: -1, messages })
  }
  await producer.disconnect()
  return bytes
}

/** RSS and peak RSS of a process, in MiB, from /proc. */
function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN)
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 }
}

/** Runs the benchmark and returns its row. */
export async function run(options: { runs?: number } = {}): Promise<ReplayBenchRow[]> {
  ensureBroker()
  const records = options.runs ?? 400_000
  const topic = uniqueName('bench-replay')
  await fill(topic, records)
  const receiver = await startOtlpReceiver()
  const config = writeTempFile(
    `${topic}.config.ts`,
    `import { defineConfig } from 'tracescore'
import { answeredScorer } from '../../config/scorers/answered.ts'
import { toolSuccessScorer } from '../../config/scorers/tool-success.ts'
export default defineConfig({
  kafka: { brokers: ${JSON.stringify(testBrokers())}, topic: '${topic}' },
  assembly: { settleMs: 200 },
  scorers: { answered: { scorer: answeredScorer }, toolSuccess: { scorer: toolSuccessScorer } },
  sinks: { otlp: { endpoint: '${receiver.url}', protocol: 'http/protobuf' } },
  log: { level: 'warn' },
})
`,
  )
  const started = performance.now()
  const child = spawn(process.execPath, ['bin/tracescore.js', 'replay', '--config', config, '--from', '0'], {
    cwd: repoRoot,
    env: { ...process.env, KAFKA_BROKERS: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const tenths: number[] = []
  let peak = 0
  let read = 0
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d).slice(-4_000)
    for (const m of stderr.matchAll(/replay: (\d+)\/\d+ records/g)) read = Number(m[1])
  })
  const sampler = setInterval(() => {
    try {
      const { rss, peak: hwm } = rssOf(child.pid!)
      peak = Math.max(peak, hwm)
      while (tenths.length < 10 && read >= ((tenths.length + 1) * records) / 10) tenths.push(rss)
    } catch {
      // the process ended between two samples
    }
  }, 200)
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))
  clearInterval(sampler)
  const seconds = (performance.now() - started) / 1000
  await receiver.close()
  await deleteTopics(testKafka('bench-replay'), [topic]).catch(() => {})
  if (code !== 0) throw new Error(`replay exited with ${code}: ${stderr.slice(-1_000)}`)
  const expectedScores = records * 2
  if (receiver.scores.size < expectedScores)
    throw new Error(`replay delivered ${receiver.scores.size} of ${expectedScores} scores`)
  const spans = records * 5
  const secondHalfGrowth = Math.max(...tenths.slice(5)) / (tenths[4] ?? Number.NaN)
  return [
    {
      case: `tracescore replay --from 0, ${records.toLocaleString('en-US')} runs, 2 code scorers, OTLP export`,
      spans,
      records,
      seconds,
      spansPerSec: spans / seconds,
      rssMiBAtTenths: tenths.map((q) => Math.round(q)).join(' / '),
      peakRssMiB: peak,
      secondHalfGrowth,
      met: secondHalfGrowth <= 1.2 ? 'flat' : 'GROWS',
    },
  ]
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await run())
