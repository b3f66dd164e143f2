/**
 * Profiles the pipeline thread on pre-filled traffic: `node --import tsx bench/profile-pipeline.ts
 * [mixed|genai] [rounds] [DIR]` writes DIR/pipeline.cpuprofile (the pipeline's run only, not the
 * traffic's making), then `node bench/profile-summary.mjs DIR` prints the self and total time
 * per function and the self time per source file. The traffic is null-keyed records of 50
 * spans over 4 partitions (as the Collector's Kafka exporter writes by default), scored by the
 * example code scorers and exported as OTLP to a receiver in a worker thread: the set-up of
 * `npm run bench -- collector`, in one process so that the profile shows only tracescore's work.
 * `PROFILE_RATE=0.1` samples both scorers at that ratio (the collector bench's sampled rows).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { Worker } from 'node:worker_threads'
import { pino } from 'pino'
import { resolveConfig } from '../src/config/index.ts'
import { generateAgentTraffic } from '../src/ingest/testing/agent-traffic.ts'
import { createPipeline } from '../src/pipeline.ts'
import { createTopic, testBrokers, testKafka, uniqueName } from '../test/helpers/kafka.ts'
import { mixedTraffic, nullKeyedRecords } from '../test/helpers/mixed-traffic.ts'
import { codeScorers, ensureBroker } from './pipeline.bench.ts'

const shape = process.argv[2] === 'genai' ? 'genai' : 'mixed'
const rounds = Number(process.argv[3] ?? 50)
ensureBroker()
const kafka = testKafka('profile-pipeline')
const spans = Array.from({ length: rounds }, (_, i) =>
  shape === 'mixed' ? mixedTraffic(7_001 + i) : generateAgentTraffic({ runs: 640, seed: 7_001 + i }).spans,
).flat()
const records = nullKeyedRecords(spans, { partitions: 4, spansPerRecord: 50 })
const topic = uniqueName(`profile-${shape}`)
await createTopic(kafka, topic, 4)
const producer = kafka.producer()
await producer.connect()
for (let i = 0; i < records.length; i += 100)
  await producer.send({
    topic,
    acks: -1,
    messages: records.slice(i, i + 100).map((r) => ({ key: null, value: r.value, partition: r.partition })),
  })
await producer.disconnect()

const worker = new Worker(new URL('./otlp-receiver-worker.ts', import.meta.url), {
  workerData: { expected: Number.MAX_SAFE_INTEGER },
})
const url = await new Promise<string>((resolve) =>
  worker.on('message', (m: { url?: string }) => m.url && resolve(m.url)),
)
const config = resolveConfig({
  kafka: { brokers: testBrokers(), topic, groupId: uniqueName('profile'), fromBeginning: true },
  scorers: sampled(codeScorers, process.env.PROFILE_RATE),
  sinks: { otlp: { endpoint: url, protocol: 'http/protobuf' } },
  metrics: { port: 0 },
})
/** The scorers, each sampling `rate` of the runs when given. */
function sampled<T extends object>(scorers: Record<string, T>, rate: string | undefined) {
  if (rate === undefined) return scorers
  const sampling = { type: 'ratio' as const, rate: Number(rate) }
  return Object.fromEntries(Object.entries(scorers).map(([name, entry]) => [name, { ...entry, sampling }]))
}

const pipeline = createPipeline(config, { logger: pino({ level: 'warn' }) })
const profileDir = process.argv[4]
const session = new Session()
if (profileDir) {
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.start')
}
const cpu0 = process.cpuUsage()
const t0 = performance.now()
await pipeline.start()
for (;;) {
  const s = pipeline.stats()
  if (s.records >= records.length && s.bufferedSpans === 0 && s.queuedTraces === 0 && s.inFlightTraces === 0)
    break
  await new Promise((r) => setTimeout(r, 10))
}
const ms = performance.now() - t0
const cpu = process.cpuUsage(cpu0)
if (profileDir) {
  const { profile } = await session.post('Profiler.stop')
  mkdirSync(profileDir, { recursive: true })
  writeFileSync(`${profileDir}/pipeline.cpuprofile`, JSON.stringify(profile))
}
console.log(
  `${shape}: ${spans.length} spans in ${(ms / 1000).toFixed(1)} s = ${Math.round((spans.length * 1000) / ms)} spans/s, ` +
    `process CPU ${((cpu.user + cpu.system) / spans.length).toFixed(2)} µs/span (receiver worker included)`,
)
await pipeline.stop()
await worker.terminate()
process.exit(0)
