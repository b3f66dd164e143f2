/**
 * A scripted OpenAI-compatible judge for fault tests and the judge benchmark (no LLM is called):
 * `POST /v1/chat/completions` answered after a fixed latency, with requests in flight measured in
 * the server, and failures injected per request by a policy (transient 503s, permanent errors).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** What the policy decides for one request: an answer text, or an HTTP error. */
export type FaultJudgeReply = { text: string } | { status: number; type: string; message: string }

/** A request as the policy sees it: the prompt text and how many times this prompt was asked before. */
export interface FaultJudgeRequest {
  prompt: string
  /** 0 for the first request with this prompt, 1 for its first retry, ... */
  attempt: number
  /** Sequence number over all requests. */
  seq: number
}

/** The running judge server. */
export interface FaultJudge {
  /** Base URL for `createOpenAICompatible({ baseURL })`. */
  readonly baseURL: string
  /** Requests received, in order, with the status answered. */
  readonly log: { prompt: string; attempt: number; status: number; at: number }[]
  /** Requests per prompt. */
  readonly attempts: Map<string, number>
  inFlight(): number
  /** Most requests ever in flight at once (measured in the server). */
  maxInFlight(): number
  close(): Promise<void>
}

/** Starts the judge; `latencyMs` is added to every answer, failures included. */
export async function startFaultJudge(options: {
  latencyMs: number
  policy: (request: FaultJudgeRequest) => FaultJudgeReply
}): Promise<FaultJudge> {
  const log: FaultJudge['log'] = []
  const attempts = new Map<string, number>()
  let inFlight = 0
  let maxInFlight = 0
  let seq = 0
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/stats') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ requests: seq, inFlight, maxInFlight }))
      return
    }
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
        model?: string
        messages?: { role: string; content: string | { text?: string }[] }[]
      }
      const prompt = (body.messages ?? [])
        .filter((m) => m.role !== 'system')
        .map((m) => (typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join('')))
        .join('\n')
      const attempt = attempts.get(prompt) ?? 0
      attempts.set(prompt, attempt + 1)
      const reply = options.policy({ prompt, attempt, seq: seq++ })
      setTimeout(() => {
        inFlight--
        const status = 'text' in reply ? 200 : reply.status
        log.push({ prompt, attempt, status, at: Date.now() })
        if (!('text' in reply)) {
          res.writeHead(reply.status, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ error: { message: reply.message, type: reply.type, code: reply.type } }))
          return
        }
        const tokens = Math.ceil(prompt.length / 4)
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            id: `chatcmpl-fault-${seq}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body.model ?? 'fault-judge',
            choices: [
              { index: 0, message: { role: 'assistant', content: reply.text }, finish_reason: 'stop' },
            ],
            usage: { prompt_tokens: tokens, completion_tokens: 8, total_tokens: tokens + 8 },
          }),
        )
      }, options.latencyMs)
    })
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    log,
    attempts,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Reads `/stats` of a judge running in another process: requests, in flight now, most in flight. */
export async function remoteJudgeStats(
  baseURL: string,
): Promise<{ requests: number; inFlight: number; maxInFlight: number }> {
  const res = await fetch(baseURL.replace(/\/v1$/, '/stats'))
  return (await res.json()) as { requests: number; inFlight: number; maxInFlight: number }
}

/** A stable number in [0, 1) from a string (FNV-1a, then mixed), for deterministic per-run fault choices. */
export function unitHash(text: string, salt = 0): number {
  let h = 0x811c9dc5 ^ salt
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  // murmur3's finalizer, so that near-identical inputs (consecutive numbers) spread evenly.
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return (h >>> 0) / 4294967296
}
