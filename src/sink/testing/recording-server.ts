import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'

/** One request as the recording server received it (body already gunzipped). */
export interface RecordedRequest {
  method: string
  /** Path and query. */
  url: string
  headers: IncomingHttpHeaders
  body: Buffer
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown
  /** The status the server answered with. */
  status: number
}

/** A real HTTP server on 127.0.0.1 that records requests and fails on demand (for sink tests). */
export interface RecordingServer {
  /** `http://127.0.0.1:<port>`. */
  readonly baseUrl: string
  readonly requests: RecordedRequest[]
  /** Answers the next `count` requests with `status` (and `body`), then 200 again. */
  failNext(count: number, status: number, body?: string): void
  /** Answers the next requests with these statuses in order (2xx with the usual body), then as usual. */
  answerNext(...statuses: number[]): void
  /** The status and body of successful answers (default 200, `{}`). */
  succeedWith(status: number, body: string): void
  /** The body of successful answers to requests whose path starts with `path` (before `succeedWith`'s). */
  succeedOn(path: string, body: string): void
  /** Records requests but answers none until `release()` (then answers the held ones and the rest at once). */
  hold(): { release(): void }
  close(): Promise<void>
}

/** Starts a recording server on an ephemeral port of 127.0.0.1. */
export async function startRecordingServer(): Promise<RecordingServer> {
  const requests: RecordedRequest[] = []
  const failures: { status: number; body?: string }[] = []
  let success = { status: 200, body: '{}' }
  const successOn = new Map<string, string>()
  let held: (() => void)[] | undefined
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      let body = Buffer.concat(chunks)
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body)
      const path = [...successOn.keys()].find((p) => req.url?.startsWith(p))
      const usual = path ? { status: 200, body: successOn.get(path)! } : success
      const next = failures.shift()
      const answer = next ? { status: next.status, body: next.body ?? usual.body } : usual
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        status: answer.status,
      }
      if (String(req.headers['content-type']).includes('json'))
        recorded.json = JSON.parse(body.toString('utf8'))
      requests.push(recorded)
      const send = () => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body)
      if (held) held.push(send)
      else send()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    failNext(count, status, body = '{"error":"injected failure"}') {
      for (let i = 0; i < count; i++) failures.push({ status, body })
    },
    answerNext(...statuses) {
      for (const status of statuses)
        failures.push({ status, body: status < 300 ? undefined : '{"error":"injected"}' })
    },
    succeedWith(status, body) {
      success = { status, body }
    },
    succeedOn(path, body) {
      successOn.set(path, body)
    },
    hold() {
      const answers: (() => void)[] = []
      held = answers
      return {
        release() {
          if (held === answers) held = undefined
          for (const send of answers.splice(0)) send()
        },
      }
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}
