/**
 * A local OTLP/HTTP traces receiver on 127.0.0.1 for fault tests and benchmarks: accepts
 * `POST /v1/traces` (protobuf or JSON), decodes the score spans with our own decoder and counts
 * every arrival per score-span id, so lost and duplicated scores can be told apart. It can be taken
 * down (connections refused) and brought back on the same port, as a backend outage, or hold its
 * answers (a slow backend: deliveries stay in flight).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'
import { decodeOtlpTraces } from '../../src/ingest/decode/index.ts'
import { scanOtlpProto } from '../../src/ingest/decode/scan-proto.ts'
import type { Span } from '../../src/model/index.ts'

/** One score span as the receiver saw it (first arrival). */
export interface ReceivedScore {
  traceId: string
  spanId: string
  /** The agent-run span the score judges. */
  agentSpanId: string
  scorer: string
  error: boolean
  /** Wall-clock ms of the first arrival. */
  firstAt: number
  /** How many times this score span arrived. */
  arrivals: number
  span: Span
}

/** The running receiver. */
export interface OtlpReceiver {
  /** Full traces URL, e.g. `http://127.0.0.1:PORT/v1/traces`. */
  readonly url: string
  /** Score spans by span id. */
  readonly scores: Map<string, ReceivedScore>
  /** Export requests answered 2xx. */
  requests(): number
  /** Span arrivals in total (duplicates included). */
  arrivals(): number
  /** Arrivals beyond the first, over all score spans. */
  duplicates(): number
  /**
   * Arrivals of a score span whose content (attributes, times, status, events) differs from its
   * first arrival: a score that changed on re-delivery. Their span ids are in `changedIds`.
   */
  changed(): number
  readonly changedIds: Set<string>
  /** Called on every first arrival (benchmarks time them). */
  onScore?: (score: ReceivedScore) => void
  /** Called after every export request answered 2xx. */
  onRequest?: () => void
  /** Stops listening and drops open connections: exporters get "connection refused". */
  down(): Promise<void>
  /** Listens again on the same port. */
  up(): Promise<void>
  /** Holds the answers to export requests (deliveries stay in flight) until `release`. */
  hold(): void
  release(): void
  /** Requests whose answer is held now. */
  held(): number
  close(): Promise<void>
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolve((server.address() as AddressInfo).port)
    })
  })
}

/**
 * Starts the receiver on a free port (or `port`). `decode: false` (benchmarks forwarding every
 * span, e.g. the Collector's): protobuf requests are only scanned, their spans counted in
 * `arrivals()` without being decoded or kept (`scores` stays empty).
 */
export async function startOtlpReceiver(
  options: { port?: number; decode?: boolean } = {},
): Promise<OtlpReceiver> {
  const scores = new Map<string, ReceivedScore>()
  const contents = new Map<string, string>()
  const changedIds = new Set<string>()
  let changed = 0
  let requests = 0
  let arrivals = 0
  let isUp = true
  let holding = false
  const heldAnswers: (() => void)[] = []
  const receiver: OtlpReceiver = {
    url: '',
    scores,
    requests: () => requests,
    arrivals: () => arrivals,
    duplicates: () => arrivals - scores.size,
    changed: () => changed,
    changedIds,
    down: async () => {
      if (!isUp) return
      isUp = false
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
    up: async () => {
      if (isUp) return
      await listen(server, port)
      isUp = true
    },
    hold: () => {
      holding = true
    },
    release: () => {
      holding = false
      for (const answer of heldAnswers.splice(0)) answer()
    },
    held: () => heldAnswers.length,
    close: async () => {
      receiver.release()
      if (!isUp) return
      isUp = false
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/traces')) {
      res.writeHead(404).end()
      return
    }
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      if (holding) heldAnswers.push(() => answer(Buffer.concat(chunks)))
      else answer(Buffer.concat(chunks))
    })
    const answer = (raw: Buffer) => {
      let body = raw
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body)
      const json = String(req.headers['content-type'] ?? '').includes('json')
      let spans: Span[]
      try {
        if (options.decode === false && !json) {
          arrivals += scanOtlpProto(body).length
          requests++
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end('')
          receiver.onRequest?.()
          return
        }
        spans = decodeOtlpTraces(json ? body.toString('utf8') : body, json ? 'otlp_json' : 'otlp_proto')
      } catch (error) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(error))
        return
      }
      const now = Date.now()
      for (const span of spans) {
        arrivals++
        const seen = scores.get(span.spanId)
        const content = contentOf(span)
        if (seen) {
          seen.arrivals++
          if (contents.get(span.spanId) !== content) {
            changed++
            changedIds.add(span.spanId)
          }
          continue
        }
        contents.set(span.spanId, content)
        const score: ReceivedScore = {
          traceId: span.traceId,
          spanId: span.spanId,
          agentSpanId: span.parentSpanId ?? '',
          scorer: String(span.attributes['tracescore.scorer.id'] ?? ''),
          error: span.status?.code === 2 || span.attributes['error.type'] !== undefined,
          firstAt: now,
          arrivals: 1,
          span,
        }
        scores.set(span.spanId, score)
        receiver.onScore?.(score)
      }
      requests++
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' })
      res.end(json ? '{}' : '')
      receiver.onRequest?.()
    }
  })
  server.keepAliveTimeout = 5_000
  const port = await listen(server, options.port ?? 0)
  ;(receiver as { url: string }).url = `http://127.0.0.1:${port}/v1/traces`
  return receiver
}

/** What must not change when a score span is delivered again. */
function contentOf(span: Span): string {
  const { name, parentSpanId, startTimeUnixNano, endTimeUnixNano, status, attributes, events } = span
  return JSON.stringify({
    name,
    parentSpanId,
    startTimeUnixNano,
    endTimeUnixNano,
    status,
    attributes,
    events,
  })
}

/** Score spans per agent run (`traceId/agentSpanId`), for "every run scored" checks. */
export function scoresByRun(receiver: OtlpReceiver): Map<string, ReceivedScore[]> {
  const out = new Map<string, ReceivedScore[]>()
  for (const score of receiver.scores.values()) {
    const key = `${score.traceId}/${score.agentSpanId}`
    const list = out.get(key)
    if (list) list.push(score)
    else out.set(key, [score])
  }
  return out
}

/**
 * Run keys whose every scorer's score had arrived (by `at`, epoch ms, when given): what counts
 * as "delivered" for a run in the fault tests.
 */
export function deliveredRuns(receiver: OtlpReceiver, scorers: number, at?: number): Set<string> {
  const done = new Set<string>()
  for (const [key, list] of scoresByRun(receiver)) {
    const arrived = at === undefined ? list.length : list.filter((s) => s.firstAt <= at).length
    if (arrived >= scorers) done.add(key)
  }
  return done
}
