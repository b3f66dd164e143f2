import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../config/index.ts'
import { createMetrics } from '../ops/metrics.ts'
import type { Pipeline } from '../pipeline.ts'
import { runService } from './run.ts'

/** A free TCP port on 127.0.0.1. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** A pipeline whose consumer dies for good when the test says so. */
function dyingPipeline() {
  let die: (error: unknown) => void = () => {}
  let finishStop: () => void = () => {}
  let alive = true
  const stopped = new Promise<void>((resolve) => {
    finishStop = resolve
  })
  const pipeline: Pipeline = {
    metrics: createMetrics(),
    start: async () => {},
    stop: () => stopped,
    stats: () => ({}) as ReturnType<Pipeline['stats']>,
    ready: () => alive,
    failed: new Promise((resolve) => {
      die = (error) => {
        alive = false
        resolve(error)
      }
    }),
    caughtUp: new Promise(() => {}),
    drain: async () => {},
    refreshMetrics: async () => {},
  }
  return { pipeline, die, finishStop }
}

const readyz = async (port: number) =>
  (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(5_000) })).status

describe('tracescore run', () => {
  it('answers /readyz 503 and exits 1 when its consumer died for good', async () => {
    const port = await freePort()
    const config = resolveConfig({ metrics: { port }, log: { level: 'error' } }, {})
    const { pipeline, die, finishStop } = dyingPipeline()
    let exitedWith: number | undefined
    const heap = { tuned: 0, untuned: 0 }
    const tuneHeap = () => {
      heap.tuned++
      return () => heap.untuned++
    }
    const running = runService(config, { pipeline, exitSoon: (code) => (exitedWith = code), tuneHeap })
    let status = 0
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = await readyz(port).catch(() => 0)
      if (status !== 200) await new Promise((r) => setTimeout(r, 50))
    }
    expect(status).toBe(200)
    die(new Error('the Kafka consumer could not be recovered'))
    // While it shuts down, it is not ready.
    let during = 200
    for (let i = 0; i < 100 && during === 200; i++) {
      during = await readyz(port)
      if (during === 200) await new Promise((r) => setTimeout(r, 50))
    }
    expect(during).toBe(503)
    finishStop()
    expect(await running).toBe(1)
    expect(exitedWith).toBe(1)
    // The service sized V8's collector as it started, and stopped watching it as it ended.
    expect(heap).toEqual({ tuned: 1, untuned: 1 })
  })
})
