import type { TracescoreConfig } from '../config/index.ts'
import { startOpsServer } from '../ops/http-server.ts'
import { createLogger } from '../ops/logger.ts'
import { createPipeline, type Pipeline } from '../pipeline.ts'
import { exitSoon } from './exit-soon.ts'

/** How long a shutdown after a fatal consumer failure may take before the process exits anyway. */
const FATAL_STOP_TIMEOUT_MS = 30_000

/**
 * `tracescore run`: the service. Serves /metrics, /healthz and /readyz (200 only while the
 * consumer is in its group and reading), consumes until SIGINT or SIGTERM, then drains in-flight
 * runs, commits and exits 0. A consumer that died and could not be replaced ends it with exit 1,
 * so its supervisor restarts it: never a live process that consumes nothing.
 */
export async function runService(
  config: TracescoreConfig,
  deps: {
    pipeline?: Pipeline
    exitSoon?: (code: number, ms?: number, onLate?: () => void) => void
    /**
     * Sizes V8's collector for the service (`tuneHeap` of heap-tuning.ts, as the CLI passes it);
     * returns what stops its watching. Absent: V8's defaults.
     */
    tuneHeap?: () => () => void
  } = {},
): Promise<number> {
  const untune = deps.tuneHeap?.() ?? (() => {})
  const logger = createLogger(config.log.level)
  const pipeline = deps.pipeline ?? createPipeline(config, { logger })
  let stopping = false
  const ops = await startOpsServer({
    host: config.metrics.host,
    port: config.metrics.port,
    registry: pipeline.metrics.registry,
    beforeScrape: pipeline.refreshMetrics,
    ready: () => !stopping && pipeline.ready(),
  })
  logger.info({ url: ops.url }, 'metrics and health endpoints listening')
  const stopped = new Promise<'signal'>((resolve) => {
    const stop = (signal: string) => {
      if (stopping) return
      stopping = true
      logger.info({ signal }, 'shutting down: draining in-flight runs and committing')
      resolve('signal')
    }
    process.once('SIGINT', () => stop('SIGINT'))
    process.once('SIGTERM', () => stop('SIGTERM'))
  })
  const failed = pipeline.failed.then((error) => ({ error }))
  const started = pipeline.start().then(
    () => ({ started: true as const }),
    (error: unknown) => ({ startError: error }),
  )
  const first = await Promise.race([started, stopped])
  if (typeof first === 'object' && 'startError' in first) {
    logger.error({ err: first.startError }, 'could not start consuming')
    await withinMs(pipeline.stop(), FATAL_STOP_TIMEOUT_MS).catch(() => {})
    await ops.close()
    ;(deps.exitSoon ?? exitSoon)(1)
    untune()
    return 1
  }
  const outcome = await Promise.race([stopped, failed])
  if (outcome !== 'signal') {
    stopping = true
    logger.error(
      { err: outcome.error },
      'consuming stopped for good (the Kafka consumer could not be recovered); exiting with 1 so the supervisor restarts tracescore',
    )
    await withinMs(pipeline.stop(), FATAL_STOP_TIMEOUT_MS).catch(() => {})
    await ops.close()
    ;(deps.exitSoon ?? exitSoon)(1)
    untune()
    return 1
  }
  await pipeline.stop()
  await ops.close()
  // Drained and committed: nothing a client left open (a Kafka consumer that would not stop) may
  // keep the stopped service alive. Said out loud, as it is a bug to find (never seen since the
  // kafkajs stop fix in kafkajs-consumer.ts).
  ;(deps.exitSoon ?? exitSoon)(0, STOPPED_EXIT_MS, () =>
    logger.warn({ afterMs: STOPPED_EXIT_MS }, LATE_EXIT_MESSAGE),
  )
  untune()
  return 0
}

/** How long a stopped service may stay alive before it exits anyway. */
const STOPPED_EXIT_MS = 10_000

/** Logged when a handle kept the stopped service alive (fault tests look for it). */
export const LATE_EXIT_MESSAGE = 'tracescore stopped, but something kept the process alive; exiting'

/** Resolves when `promise` settles or after `ms`. */
async function withinMs(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))])
  clearTimeout(timer)
}
