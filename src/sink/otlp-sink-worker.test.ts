import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Worker } from 'node:worker_threads'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConfigError } from '../config/config-error.ts'
import { resolveConfig } from '../config/index.ts'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import type { ScoreRecord } from '../model/index.ts'
import { createOtlpSink, createOtlpSinkWith } from './otlp-sink.ts'
import type { OtlpSinkConfig } from './otlp-sink-config.ts'
import { resolveOtlpSinkConfig } from './otlp-sink-config.ts'
import { scoreSpanId } from './score-span-id.ts'
import type { CountingSink } from './sink.ts'
import { type RecordingServer, startRecordingServer } from './testing/recording-server.ts'
import { scoreRecordFixture } from './testing/score-record-fixture.ts'

// The OTLP sink's export on a worker thread (`exportThread: 'worker'`): the same requests as on the pipeline's
// thread, and no score lost or settled twice when the worker dies with exports in flight.

let server: RecordingServer
let dir: string
beforeEach(async () => {
  server = await startRecordingServer()
  dir = mkdtempSync(join(tmpdir(), 'export-worker-'))
})
afterEach(async () => {
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

const crashingWorker = new URL('./testing/crashing-export-worker.ts', import.meta.url)

/** A sink on the crashing test worker; `workers` collects every worker it started. */
function crashableSink(config: OtlpSinkConfig = {}) {
  const workers: Worker[] = []
  const sink = createOtlpSinkWith(
    { endpoint: `${server.baseUrl}/v1/traces`, exportThread: 'worker', retry: { retries: 0 }, ...config },
    { workerUrl: crashingWorker, onWorker: (w) => workers.push(w) },
  )
  return { sink, workers }
}

/** Records of distinct scorers (distinct span ids) on one agent span. */
function records(prefix: string, n: number): ScoreRecord[] {
  return Array.from({ length: n }, (_, i) => scoreRecordFixture({ scorerId: `${prefix}-${i}` }))
}

/** Delivers each batch at once; counts how often each delivery's promise settled, and how. */
function deliverAll(sink: CountingSink, batches: ScoreRecord[][]) {
  const settled = batches.map(() => ({ resolved: 0, rejected: 0 }))
  const all = Promise.all(
    batches.map((batch, i) =>
      sink.deliver(batch).then(
        () => void settled[i]!.resolved++,
        () => void settled[i]!.rejected++,
      ),
    ),
  )
  return { settled, all }
}

/** The span ids the receiver got, over every request. */
function receivedSpanIds(): Set<string> {
  return new Set(
    server.requests.flatMap((r) => decodeOtlpTraces(new Uint8Array(r.body)).map((s) => s.spanId)),
  )
}

const spanIdOf = (r: ScoreRecord) => scoreSpanId(r.traceId, r.spanId, r.scorerId)

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 5))
}

describe('OTLP export on a worker thread', () => {
  it('sends the same request bytes as the export on the pipeline thread, protobuf and JSON', async () => {
    const batch = [
      scoreRecordFixture({ score: 1, label: 'pass' }),
      scoreRecordFixture({ scorerId: 'broken', error: { type: 'JudgeError', message: 'timeout' } }),
      scoreRecordFixture({ scorerId: 'half', score: 0.5, incomplete: true }),
    ]
    const bodies: Buffer[] = []
    for (const protocol of ['http/protobuf', 'http/json'] as const) {
      for (const exportThread of ['worker', 'main'] as const) {
        const sink = createOtlpSink({
          endpoint: `${server.baseUrl}/v1/traces`,
          protocol,
          exportThread,
          passThreshold: 0.7,
          resourceAttributes: { 'deployment.environment': 'test' },
          headers: { 'x-tenant': 'a' },
        })
        await sink.deliver(batch)
        await sink.close()
        const request = server.requests.at(-1)!
        expect(request.headers['x-tenant']).toBe('a')
        bodies.push(request.body)
      }
    }
    expect(server.requests).toHaveLength(4)
    expect(bodies[0]!.equals(bodies[1]!)).toBe(true)
    expect(bodies[2]!.equals(bodies[3]!)).toBe(true)
    expect(decodeOtlpTraces(new Uint8Array(bodies[0]!)).map((s) => s.spanId)).toEqual(batch.map(spanIdOf))
  })

  it('replaces a worker terminated with exports in flight: every score arrives, each delivery settles once', async () => {
    const { sink, workers } = crashableSink({ maxBatchSize: 4 })
    // 5 export requests; a delivery sends its second batch after its first was acknowledged.
    const batches = [records('a', 6), records('b', 3), records('c', 5)]
    const held = server.hold()
    const { settled, all } = deliverAll(sink, batches)
    await until(() => server.requests.length === 3) // the first batches in flight, none answered
    await workers[0]!.terminate()
    await until(() => server.requests.length === 6) // re-sent on the replacement
    held.release()
    await all
    await sink.close()

    expect(workers).toHaveLength(2)
    expect(settled).toEqual(batches.map(() => ({ resolved: 1, rejected: 0 })))
    const expected = batches.flat().map(spanIdOf)
    expect([...receivedSpanIds()].sort()).toEqual([...expected].sort())
    expect(sink.stats()).toEqual({ delivered: 14, failed: 0, retries: 0, skipped: 0 })
  })

  it('replaces a worker that exits or throws while exporting, and re-sends what it held', async () => {
    const { sink, workers } = crashableSink()
    const exitOnce = scoreRecordFixture({ scorerId: 'exit-worker', reason: join(dir, 'exited') })
    const throwOnce = scoreRecordFixture({ scorerId: 'throw-in-worker', reason: join(dir, 'threw') })
    const batches = [records('a', 3), [exitOnce], records('b', 2), [throwOnce], records('c', 1)]
    const { settled, all } = deliverAll(sink, batches)
    await all
    await sink.close()

    expect(workers.length).toBe(3) // the first, one after the exit, one after the throw
    expect(settled).toEqual(batches.map(() => ({ resolved: 1, rejected: 0 })))
    const received = receivedSpanIds()
    for (const record of batches.flat()) expect(received.has(spanIdOf(record))).toBe(true)
    expect(sink.stats()).toMatchObject({ delivered: 8, failed: 0 })
  })

  it('fails the delivery of a record that kills every worker after 3 deaths, and keeps exporting', async () => {
    const { sink, workers } = crashableSink()
    const poison = scoreRecordFixture({ scorerId: 'exit-worker', reason: undefined })
    await expect(sink.deliver([poison])).rejects.toMatchObject({
      name: 'SinkDeliveryError',
      message: /export worker died 3 times/,
    })
    expect(workers).toHaveLength(3)
    const after = records('after', 2)
    await sink.deliver(after)
    await sink.close()
    expect([...receivedSpanIds()].sort()).toEqual(after.map(spanIdOf).sort())
    expect(sink.stats()).toMatchObject({ delivered: 2, failed: 1 })
  })

  it('close() waits for the exports in flight, then ends the worker; later deliveries reject', async () => {
    const { sink, workers } = crashableSink()
    const held = server.hold()
    const { settled, all } = deliverAll(sink, [records('a', 2)])
    await until(() => server.requests.length === 1)
    const exited = new Promise<number>((resolve) => workers[0]!.once('exit', resolve))
    let closed = false
    const closing = sink.close().then(() => {
      closed = true
    })
    await new Promise((r) => setTimeout(r, 50))
    expect(closed).toBe(false)
    held.release()
    await closing
    await all
    expect(settled).toEqual([{ resolved: 1, rejected: 0 }])
    expect(await exited).toBe(1) // terminated
    expect(workers).toHaveLength(1)
    await expect(sink.deliver(records('late', 1))).rejects.toThrow(/closed/)
  })

  it('takes the backend error across the thread: 4xx is not retried, 415 explained, 5xx retried', async () => {
    const sleep = async () => {}
    const sink = createOtlpSink({
      endpoint: `${server.baseUrl}/v1/traces`,
      protocol: 'http/json',
      exportThread: 'worker',
      retry: { retries: 2, initialDelayMs: 1 },
      sleep,
    })
    server.answerNext(400)
    await expect(sink.deliver(records('a', 1))).rejects.toMatchObject({ attempts: 1, cause: { code: 400 } })
    server.answerNext(415)
    await expect(sink.deliver(records('b', 1))).rejects.toThrow(/415.*http\/protobuf/)
    server.answerNext(500, 500)
    await sink.deliver(records('c', 1))
    await sink.close()
    expect(sink.stats()).toEqual({ delivered: 1, failed: 2, retries: 2, skipped: 0 })
  })
})

describe('sinks.otlp.exportThread', () => {
  it('is main by default and worker on request', () => {
    expect(resolveOtlpSinkConfig({}).exportThread).toBe('main')
    expect(resolveOtlpSinkConfig({ exportThread: 'worker' }).exportThread).toBe('worker')
    const fromConfig = resolveConfig({ sinks: { otlp: { exportThread: 'worker' } } }, {}).sinks.otlp
    expect(fromConfig !== false && fromConfig.exportThread).toBe('worker')
  })

  it('refuses another value with an error naming the key', () => {
    const bad = { exportThread: 'thread-pool' } as unknown as OtlpSinkConfig
    expect(() => resolveOtlpSinkConfig(bad)).toThrow(ConfigError)
    expect(() => resolveOtlpSinkConfig(bad)).toThrow(/sinks\.otlp\.exportThread: expected worker or main/)
    expect(() => resolveConfig({ sinks: { otlp: bad } } as never, {})).toThrow(/sinks\.otlp\.exportThread/)
  })
})
