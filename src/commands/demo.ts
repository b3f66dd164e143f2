import { spawnSync } from 'node:child_process'
import { resolve } from 'node:path'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { Kafka, logLevel } from 'kafkajs'
import { resolveConfig } from '../config/index.ts'
import { demoJudgePolicy } from '../demo/demo-judge-policy.ts'
import { startScriptedJudge } from '../demo/scripted-judge-server.ts'
import { shiftTracesToPresent } from '../demo/shift-to-present.ts'
import { createCollectingSink, summaryTable } from '../demo/summary.ts'
import { loadTrafficSamples, withFreshIds } from '../demo/traffic.ts'
import { silentLogger } from '../ops/logger.ts'
import { packageRoot } from '../package-root.ts'
import { createPipeline } from '../pipeline.ts'

const say = (text: string) => process.stdout.write(`${text}\n`)

async function brokerAnswers(brokers: string[]): Promise<boolean> {
  const admin = new Kafka({
    clientId: 'tracescore-demo',
    brokers,
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
  }).admin()
  try {
    await admin.connect()
    await admin.listTopics()
    return true
  } catch {
    return false
  } finally {
    await admin.disconnect().catch(() => {})
  }
}

async function phoenixAnswers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) })).ok
  } catch {
    return false
  }
}

/**
 * `tracescore demo`: starts the local Kafka broker if none answers, produces recorded agent
 * traffic (real instrumentation libraries, scripted models) under fresh trace ids and shifted to
 * the present, runs the pipeline with the example scorers — two code scorers and an LLM-judge
 * scorer answered by a scripted local judge — and prints a summary of the scores. Exits 0 when every run was scored.
 */
export async function runDemo(options: { runs?: number } = {}): Promise<number> {
  const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',')
  say('tracescore demo\n')
  if (!(await brokerAnswers(brokers))) {
    say(`• no Kafka broker at ${brokers.join(',')}: starting the local one (scripts/kafka-start.sh)`)
    const started = spawnSync('bash', [resolve(packageRoot, 'scripts/kafka-start.sh')], {
      stdio: ['ignore', 2, 2],
    })
    if (started.status !== 0) {
      console.error('tracescore demo: the local Kafka broker did not start (see the log above)')
      return 1
    }
  }
  say(`• Kafka broker at ${brokers.join(',')}`)

  const judge = await startScriptedJudge(demoJudgePolicy)
  say(`• scripted LLM judge (not a real model) at ${judge.baseURL}`)
  const phoenixUrl = process.env.PHOENIX_URL ?? 'http://127.0.0.1:6006'
  const phoenix = await phoenixAnswers(phoenixUrl)
  say(
    phoenix
      ? `• Phoenix at ${phoenixUrl}: score spans go there`
      : '• no Phoenix running: scores are shown here only',
  )

  const { answeredScorer } = await import(resolve(packageRoot, 'config/scorers/answered.ts'))
  const { toolSuccessScorer } = await import(resolve(packageRoot, 'config/scorers/tool-success.ts'))
  const { createHelpfulnessScorer } = await import(resolve(packageRoot, 'config/scorers/helpfulness.ts'))
  const judgeModel = createOpenAICompatible({ name: 'scripted', baseURL: judge.baseURL })('scripted-judge')

  const stamp = Date.now().toString(36)
  const topic = `tracescore_demo_${stamp}`
  const config = resolveConfig({
    kafka: {
      brokers,
      topic,
      groupId: `tracescore-demo-${stamp}`,
      fromBeginning: true,
      deadLetterTopic: `${topic}_dlq`,
    },
    assembly: { settleMs: 300 },
    scorers: {
      answered: { scorer: answeredScorer },
      toolSuccess: { scorer: toolSuccessScorer },
      helpfulness: { scorer: createHelpfulnessScorer(judgeModel) },
    },
    sinks: { otlp: phoenix ? { endpoint: `${phoenixUrl}/v1/traces`, protocol: 'http/protobuf' } : false },
    metrics: { port: 0 },
  })

  const samples = loadTrafficSamples(resolve(packageRoot, 'test/fixtures/data'))
  const count = options.runs ?? samples.length * 2
  const kafka = new Kafka({ clientId: 'tracescore-demo', brokers, logLevel: logLevel.NOTHING })
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: 4 }], waitForLeaders: true })
  const producer = kafka.producer()
  await producer.connect()
  const traceIds = new Set<string>()
  for (let i = 0; i < count; i++) {
    const fresh = withFreshIds(samples[i % samples.length]!)
    const ids = fresh.traceIds
    // Recorded months ago: moved to now, so the runs sit in the backend's default time window
    // next to the scores written for them.
    const payload = shiftTracesToPresent(fresh.payload, Date.now())
    for (const id of ids) traceIds.add(id)
    await producer.send({ topic, messages: [{ key: ids[0] ?? null, value: payload }] })
    if (phoenix) {
      await fetch(`${phoenixUrl}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf' },
        body: payload,
      }).catch(() => {})
    }
  }
  await producer.disconnect()
  say(
    `• produced ${count} OTLP records (${traceIds.size} traces, ${samples.length} recorded scenarios) to ${topic}\n`,
  )

  const collected = createCollectingSink()
  const pipeline = createPipeline(config, { logger: silentLogger(), extraSinks: [collected] })
  await pipeline.start()
  const deadline = Date.now() + 120_000
  let done = 0
  while (Date.now() < deadline) {
    const stats = pipeline.stats()
    done = stats.tracesDelivered + stats.tracesWithoutRuns
    process.stdout.write(`\r  scoring: ${done}/${traceIds.size} traces, ${collected.records.length} scores`)
    if (done >= traceIds.size) break
    await new Promise((r) => setTimeout(r, 250))
  }
  process.stdout.write('\n\n')
  await pipeline.stop()
  await judge.close()
  const existing = new Set(await admin.listTopics())
  await admin.deleteTopics({ topics: [topic, `${topic}_dlq`].filter((t) => existing.has(t)) }).catch(() => {})
  await admin.disconnect()

  say(summaryTable(collected.records))
  const failed = collected.records.filter((r) => r.error).length
  say(`\n${collected.records.length} scores for ${traceIds.size} traces; ${failed} failed scorings.`)
  say(
    phoenix
      ? `Score spans are in Phoenix: ${phoenixUrl} (project "default"), as "evaluation <scorer>" children of each agent span.`
      : 'Start Phoenix (bash scripts/phoenix-start.sh) before the demo to see the score spans inside the traces.',
  )
  return done >= traceIds.size ? 0 : 1
}
