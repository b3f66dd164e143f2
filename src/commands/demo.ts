import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { Kafka, logLevel } from 'kafkajs'
import { demoPhoenixUrl } from '../config/env.ts'
import { resolveConfig, type TracescoreConfig } from '../config/index.ts'
import { demoJudgePolicy } from '../demo/demo-judge-policy.ts'
import {
  brokerAnswers,
  localBrokerPort,
  startLocalBroker,
  stopCommand,
  stopLocalBroker,
} from '../demo/local-broker.ts'
import { produceTraffic } from '../demo/produce-traffic.ts'
import { startScriptedJudge } from '../demo/scripted-judge-server.ts'
import { createCollectingSink, summaryTable } from '../demo/summary.ts'
import { loadTrafficSamples } from '../demo/traffic.ts'
import { silentLogger } from '../ops/logger.ts'
import { packageRoot } from '../package-root.ts'
import { createPipeline } from '../pipeline.ts'

const say = (text: string) => process.stdout.write(`${text}\n`)

async function phoenixAnswers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) })).ok
  } catch {
    return false
  }
}

/** Options of `tracescore demo`. */
interface DemoOptions {
  /** Records to produce (default: every recorded scenario twice). */
  runs?: number
  /** Leave a broker the demo started running at the end (it is stopped by default). */
  keepBroker?: boolean
}

/**
 * Makes sure a broker answers at `brokers`: one already running is used and left alone;
 * otherwise the local launcher starts one on that port, which the demo stops at the end (and on
 * Ctrl-C) unless `keep`. Returns what to do when the demo ends, or undefined when there is no broker.
 */
async function useBroker(brokers: string[], keep: boolean): Promise<(() => void) | undefined> {
  const at = brokers.join(',')
  if (await brokerAnswers(brokers)) {
    say(`• Kafka broker at ${at} (already running: used and left running)`)
    return () => {}
  }
  const port = localBrokerPort(brokers)
  if (port === undefined) {
    console.error(
      `tracescore demo: no Kafka broker answers at ${at} (only one on 127.0.0.1 can be started here)`,
    )
    return undefined
  }
  say(`• no Kafka broker at ${at}: starting the local one (scripts/kafka-start.sh)`)
  const outcome = await startLocalBroker(port).catch((error: Error) => {
    console.error(`tracescore demo: the local Kafka broker did not start: ${error.message}`)
  })
  if (!outcome) return undefined
  if (outcome === 'reused') {
    say(`• Kafka broker at ${at} (started meanwhile by someone else: left running)`)
    return () => {}
  }
  if (keep) {
    say(`• Kafka broker started at ${at}; it keeps running after the demo (--keep-broker)`)
    return () => say(`\nThe Kafka broker on ${at} keeps running. Stop it with:\n  ${stopCommand(port)}`)
  }
  say(`• Kafka broker started at ${at}; the demo stops it at the end (--keep-broker keeps it)`)
  const stop = () =>
    say(
      stopLocalBroker(port)
        ? `\nStopped the Kafka broker the demo started on ${at}.`
        : `\nThe Kafka broker on ${at} did not stop (see above). Stop it with:\n  ${stopCommand(port)}`,
    )
  const onSignal = (signal: NodeJS.Signals) => {
    stop()
    process.exit(signal === 'SIGINT' ? 130 : 143)
  }
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal)
  return () => {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal)
    stop()
  }
}

/** The demo's pipeline configuration: the example scorers, the judge, a fresh topic on the brokers. */
async function demoConfig(judgeURL: string, phoenixUrl: string | undefined): Promise<TracescoreConfig> {
  // The example scorers of config/scorers/ as compiled by `npm run build`: Node does not strip
  // TypeScript types under node_modules, where the published package runs from.
  const example = (name: string) =>
    import(pathToFileURL(resolve(packageRoot, 'dist/examples/scorers', name)).href)
  const { answeredScorer } = await example('answered.js')
  const { toolSuccessScorer } = await example('tool-success.js')
  const { createHelpfulnessScorer } = await example('helpfulness.js')
  const judgeModel = createOpenAICompatible({ name: 'scripted', baseURL: judgeURL })('scripted-judge')
  const stamp = Date.now().toString(36)
  const topic = `tracescore_demo_${stamp}`
  // Brokers: KAFKA_BROKERS, else the default (127.0.0.1:9092), as for `tracescore run`.
  return resolveConfig({
    kafka: {
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
    // With Phoenix: score spans, and annotations (per run on the agent span, per trace for the trace list).
    sinks: phoenixUrl
      ? {
          otlp: { endpoint: `${phoenixUrl}/v1/traces`, protocol: 'http/protobuf' },
          phoenix: { url: phoenixUrl },
        }
      : { otlp: false },
    metrics: { port: 0 },
  })
}

/** Runs the pipeline until every trace is scored (or two minutes pass); true when all were. */
async function scoreAll(
  config: TracescoreConfig,
  traces: number,
  collected: ReturnType<typeof createCollectingSink>,
) {
  const pipeline = createPipeline(config, { logger: silentLogger(), extraSinks: [collected] })
  await pipeline.start()
  const deadline = Date.now() + 120_000
  let done = 0
  while (Date.now() < deadline) {
    const stats = pipeline.stats()
    done = stats.tracesDelivered + stats.tracesWithoutRuns
    process.stdout.write(`\r  scoring: ${done}/${traces} traces, ${collected.records.length} scores`)
    if (done >= traces) break
    await new Promise((r) => setTimeout(r, 250))
  }
  process.stdout.write('\n\n')
  await pipeline.stop()
  return done >= traces
}

/**
 * `tracescore demo`: uses the Kafka broker that answers, or starts the local one (and stops it at
 * the end), produces recorded agent traffic (real instrumentation libraries, scripted models)
 * under fresh trace ids and shifted to the present, runs the pipeline with the example scorers —
 * two code scorers and an LLM-judge scorer answered by a scripted local judge — and prints a
 * summary of the scores. Exits 0 when every run was scored.
 */
export async function runDemo(options: DemoOptions = {}): Promise<number> {
  say('tracescore demo\n')
  const judge = await startScriptedJudge(demoJudgePolicy)
  const phoenixUrl = demoPhoenixUrl()
  const phoenix = (await phoenixAnswers(phoenixUrl)) ? phoenixUrl : undefined
  const config = await demoConfig(judge.baseURL, phoenix)
  const { brokers, topic } = config.kafka
  const releaseBroker = await useBroker(brokers, options.keepBroker ?? false)
  if (!releaseBroker) {
    await judge.close()
    return 1
  }
  const kafka = new Kafka({ clientId: 'tracescore-demo', brokers, logLevel: logLevel.NOTHING })
  const admin = kafka.admin()
  try {
    say(`• scripted LLM judge (not a real model) at ${judge.baseURL}`)
    say(
      phoenix
        ? `• Phoenix at ${phoenix}: score spans and annotations go there`
        : '• no Phoenix running: scores are shown here only',
    )
    const samples = loadTrafficSamples(resolve(packageRoot, 'dist/demo-data'))
    const count = options.runs ?? samples.length * 2
    await admin.connect()
    await admin.createTopics({ topics: [{ topic, numPartitions: 4 }], waitForLeaders: true })
    const traceIds = await produceTraffic({ kafka, topic, samples, count, phoenixUrl: phoenix })
    say(
      `• produced ${count} OTLP records (${traceIds.size} traces, ${samples.length} recorded scenarios) to ${topic}\n`,
    )

    const collected = createCollectingSink()
    const complete = await scoreAll(config, traceIds.size, collected)
    const existing = new Set(await admin.listTopics())
    await admin
      .deleteTopics({ topics: [topic, `${topic}_dlq`].filter((t) => existing.has(t)) })
      .catch(() => {})

    say(summaryTable(collected.records))
    const failed = collected.records.filter((r) => r.error).length
    say(`\n${collected.records.length} scores for ${traceIds.size} traces; ${failed} failed scorings.`)
    say(
      phoenix
        ? `Scores are in Phoenix: ${phoenix} (project "default"): as "evaluation <scorer>" children of each agent span, as annotations of the agent span, and per trace as trace annotations (the trace list's annotations column, the "Trace annotation scores" chart).`
        : 'To see the score spans inside the traces, run Phoenix on 127.0.0.1:6006 (or at PHOENIX_URL) before the demo: `phoenix serve`, or `bash scripts/phoenix-start.sh` in the repository.',
    )
    return complete ? 0 : 1
  } finally {
    await admin.disconnect().catch(() => {})
    await judge.close()
    releaseBroker()
  }
}
