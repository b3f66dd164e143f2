import { PassThrough } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { combineSinks, FanOutDeliveryError } from './combine-sinks.ts'
import { createSinks } from './create-sinks.ts'
import type { Sink } from './sink.ts'
import { type RecordingServer, startRecordingServer } from './testing/recording-server.ts'
import { scoreRecordFixture } from './testing/score-record-fixture.ts'

let server: RecordingServer
beforeEach(async () => {
  server = await startRecordingServer()
})
afterEach(() => server.close())

function gatedSink(name: string): Sink & { open(): void; fail(error: Error): void; calls: number } {
  let resolveGate: () => void = () => {}
  let rejectGate: (e: Error) => void = () => {}
  const sink = {
    name,
    calls: 0,
    deliver() {
      sink.calls++
      return new Promise<void>((resolve, reject) => {
        resolveGate = resolve
        rejectGate = reject
      })
    },
    close: async () => {},
    open: () => resolveGate(),
    fail: (error: Error) => rejectGate(error),
  }
  return sink
}

describe('combineSinks', () => {
  it('resolves only when every sink acknowledged', async () => {
    const a = gatedSink('a')
    const b = gatedSink('b')
    const combined = combineSinks([a, b])
    let done = false
    const delivery = combined.deliver([scoreRecordFixture()]).then(() => {
      done = true
    })
    a.open()
    await new Promise((r) => setImmediate(r))
    expect(done).toBe(false)
    b.open()
    await delivery
    expect(done).toBe(true)
    expect(combined.name).toBe('a+b')
    expect(combined.stats()).toMatchObject({ delivered: 1, failed: 0 })
  })

  it('waits for all, then rejects naming the sinks that failed', async () => {
    const a = gatedSink('a')
    const b = gatedSink('b')
    const combined = combineSinks([a, b])
    const delivery = combined.deliver([scoreRecordFixture(), scoreRecordFixture()])
    a.fail(new Error('a is down'))
    b.open()
    const error = await delivery.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(FanOutDeliveryError)
    expect(error).toMatchObject({ failedSinks: ['a'] })
    expect((error as FanOutDeliveryError).errors[0]).toMatchObject({ message: 'a is down' })
    expect(a.calls + b.calls).toBe(2)
    expect(combined.stats()).toMatchObject({ delivered: 0, failed: 2 })
  })
})

describe('createSinks', () => {
  it('builds the configured sinks and delivers to all of them', async () => {
    const stream = new PassThrough()
    let out = ''
    stream.on('data', (c: Buffer) => {
      out += c.toString()
    })
    server.succeedOn('/graphql', '{"data":{"t0":null}}')
    const sinks = createSinks([
      { type: 'otlp', endpoint: `${server.baseUrl}/v1/traces`, protocol: 'http/json' },
      { type: 'phoenix', url: server.baseUrl },
      { type: 'jsonl', stream },
    ])
    await sinks.deliver([scoreRecordFixture()])
    await sinks.close()
    expect(server.requests.map((r) => r.url).sort()).toEqual([
      '/graphql',
      '/v1/span_annotations?sync=true',
      '/v1/trace_annotations?sync=true',
      '/v1/traces',
    ])
    expect(JSON.parse(out).scorer).toBe('task-success')
    expect(Object.keys(sinks.memberStats())).toEqual(['otlp', 'phoenix', 'jsonl'])
    expect(Object.values(sinks.memberStats()).map((s) => s.delivered)).toEqual([1, 1, 1])
  })

  it('with no sinks configured acknowledges at once and sends nothing', async () => {
    const none = createSinks([])
    await none.deliver([scoreRecordFixture()])
    expect(none.stats()).toMatchObject({ delivered: 1, failed: 0 })
    expect(server.requests).toHaveLength(0)
  })

  it('rejects an unknown sink type naming the key', () => {
    expect(() => createSinks([{ type: 'datadog' } as never])).toThrow(/sinks\[\]\.type/)
  })
})
