import type { TracescoreConfig } from '../config/index.ts'
import { startOpsServer } from '../ops/http-server.ts'
import { createLogger } from '../ops/logger.ts'
import { createPipeline } from '../pipeline.ts'

/**
 * `tracescore run`: the service. Serves /metrics, /healthz and /readyz, consumes until SIGINT or
 * SIGTERM, then drains in-flight runs, commits and exits 0.
 */
export async function runService(config: TracescoreConfig): Promise<number> {
  const logger = createLogger(config.log.level)
  const pipeline = createPipeline(config, { logger })
  let ready = false
  const ops = await startOpsServer({
    host: config.metrics.host,
    port: config.metrics.port,
    registry: pipeline.metrics.registry,
    ready: () => ready,
  })
  logger.info({ url: ops.url }, 'metrics and health endpoints listening')
  const stopped = new Promise<void>((resolve) => {
    let stopping = false
    const stop = (signal: string) => {
      if (stopping) return
      stopping = true
      ready = false
      logger.info({ signal }, 'shutting down: draining in-flight runs and committing')
      resolve()
    }
    process.once('SIGINT', () => stop('SIGINT'))
    process.once('SIGTERM', () => stop('SIGTERM'))
  })
  let startError: Error | undefined
  const started = pipeline.start().then(
    () => {
      ready = true
    },
    (error: Error) => {
      startError = error
    },
  )
  await Promise.race([started, stopped])
  if (startError) {
    logger.error({ err: startError }, 'could not start consuming')
    await pipeline.stop().catch(() => {})
    await ops.close()
    return 1
  }
  await stopped
  await pipeline.stop()
  await ops.close()
  return 0
}
