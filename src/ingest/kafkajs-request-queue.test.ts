import { createRequire } from 'node:module'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { fixKafkajsRequestQueue } from './kafkajs-request-queue.ts'

const RequestQueue = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js')
const noop = () => {}
const logger = { debug: noop, info: noop, warn: noop, error: noop, namespace: () => logger }

/** A kafkajs request queue as a connection makes one (one request in flight at most). */
function queue() {
  return new RequestQueue({
    instrumentationEmitter: { emit: noop },
    maxInFlightRequests: 1,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: '127.0.0.1:1',
    logger,
    isConnected: () => true,
  })
}

/** A request for `push`: records when it was sent. */
function request(correlationId: number, sent: number[]) {
  return {
    entry: { correlationId, apiKey: 1, apiName: 'Fetch', apiVersion: 11, resolve: noop, reject: noop },
    expectResponse: true,
    sendRequest: () => sent.push(correlationId),
  }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('fixKafkajsRequestQueue', () => {
  it('replaces the method once, and kafkajs connections use the replacement', () => {
    expect(fixKafkajsRequestQueue()).toBe(true)
    expect(fixKafkajsRequestQueue()).toBe(true)
    expect(RequestQueue.prototype.scheduleCheckPendingRequests.toString()).not.toContain('let scheduleAt')
  })

  it('schedules no timer while nothing is pending and nothing throttled (stock kafkajs spins a 1 ms timer and warns on Node 24)', () => {
    fixKafkajsRequestQueue()
    vi.useFakeTimers()
    const q = queue()
    const sent: number[] = []
    q.push(request(1, sent))
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 })
    expect(sent).toEqual([1])
    expect(vi.getTimerCount()).toBe(0)
  })

  it('still sends a request left pending behind a full in-flight window, and one held by a throttle', () => {
    fixKafkajsRequestQueue()
    vi.useFakeTimers()
    const q = queue()
    const sent: number[] = []
    q.push(request(1, sent))
    q.push(request(2, sent)) // waits: one request in flight at most
    expect(sent).toEqual([1])
    q.inflight.delete(1) // the response is lost: only the queue's own timer can send request 2
    vi.advanceTimersByTime(10)
    expect(sent).toEqual([1, 2])

    q.maybeThrottle(500)
    q.inflight.delete(2)
    q.push(request(3, sent))
    vi.advanceTimersByTime(499)
    expect(sent).toEqual([1, 2])
    vi.advanceTimersByTime(1)
    expect(sent).toEqual([1, 2, 3])
    q.inflight.delete(3)
    vi.advanceTimersByTime(1_000)
    expect(vi.getTimerCount()).toBe(0)
  })
})
