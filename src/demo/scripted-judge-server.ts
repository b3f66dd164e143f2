import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'

/** A chat message as the OpenAI chat-completions API carries it. */
export interface ChatMessage {
  role: string
  content: string | { type: string; text?: string }[] | null
}

/** An HTTP error the judge answers instead of a text, as a provider would (a 503, a 400...). */
export interface JudgeErrorReply {
  status: number
  /** The provider's error type, also sent as its `code` (`'overloaded'`, `'invalid_request_error'`). */
  type: string
  message: string
}

/**
 * Decides the judge's answer from the request it received: a text, or an HTTP error. A policy
 * that throws answers 500 with its message.
 */
export type JudgePolicy = (request: {
  model: string
  messages: ChatMessage[]
  body: Record<string, unknown>
}) => string | JudgeErrorReply

/** A request the scripted judge received, kept for inspection. */
export interface RecordedJudgeRequest {
  model: string
  messages: ChatMessage[]
  body: Record<string, unknown>
}

/** Plain text of a chat message (string content or its text parts). */
export function messageText(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content
  return (message.content ?? []).map((p) => p.text ?? '').join('')
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}')
}

/** Options of `startScriptedJudge`. */
export interface ScriptedJudgeOptions {
  /** Port on 127.0.0.1; 0 (default) takes a free one. */
  port?: number
  /** Added to every answer, errors included (a provider's latency; a function: drawn per request). Default 0. */
  latencyMs?: number | (() => number)
}

/** The running scripted judge. */
export interface ScriptedJudgeServer {
  /** Base URL to give an OpenAI-compatible provider (`.../v1`). */
  readonly baseURL: string
  /** Every chat request received, in order. */
  readonly requests: RecordedJudgeRequest[]
  /** Requests being answered now (received, answer not yet sent). */
  inFlight(): number
  /** Most requests ever in flight at once, measured in the server. */
  maxInFlight(): number
  close(): Promise<void>
}

/**
 * A scripted OpenAI-compatible judge on 127.0.0.1: `POST /v1/chat/completions` (plain or
 * streamed) answered by a policy function, after `latencyMs`; `GET /stats` tells requests and
 * requests in flight (for a judge in another process). It stands in for the LLM provider in the
 * demo, the tests and the judge benchmark, where no network exists; it is labelled as scripted
 * wherever it is used.
 */
export async function startScriptedJudge(
  policy: JudgePolicy,
  options: ScriptedJudgeOptions = {},
): Promise<ScriptedJudgeServer> {
  const requests: RecordedJudgeRequest[] = []
  const latency = options.latencyMs ?? 0
  const latencyOf = typeof latency === 'function' ? latency : () => latency
  let counter = 0
  let inFlight = 0
  let maxInFlight = 0
  const server = createServer(async (req, res) => {
    if (req.method === 'GET' && req.url === '/stats') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ requests: requests.length, inFlight, maxInFlight }))
      return
    }
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}')
      return
    }
    const body = await readJson(req)
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    try {
      const model = String(body.model ?? 'scripted-judge')
      const messages = (body.messages ?? []) as ChatMessage[]
      requests.push({ model, messages, body })
      const reply = replyOf(policy, { model, messages, body })
      const latencyMs = latencyOf()
      if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs))
      if (typeof reply === 'string')
        answer(res, { id: `chatcmpl-scripted-${++counter}`, model, messages, body }, reply)
      else {
        res.writeHead(reply.status, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: reply.message, type: reply.type, code: reply.type } }))
      }
    } finally {
      inFlight--
    }
  })
  // Longer than the clients' idle sockets live: a socket the server closes as a client reuses it
  // would fail a request for a reason no provider would give.
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', () => resolve()))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** The policy's reply; a policy that throws answers 500 (a provider's server error). */
function replyOf(policy: JudgePolicy, request: Parameters<JudgePolicy>[0]): string | JudgeErrorReply {
  try {
    return policy(request)
  } catch (error) {
    return { status: 500, type: 'server_error', message: (error as Error).message }
  }
}

/** Sends `text` as a chat completion, streamed when the request asked for a stream. */
function answer(
  res: ServerResponse,
  request: { id: string; model: string; messages: ChatMessage[]; body: Record<string, unknown> },
  text: string,
): void {
  const { id, model, messages, body } = request
  const created = Math.floor(Date.now() / 1000)
  const promptTokens = Math.ceil(messages.map(messageText).join(' ').length / 4)
  const completionTokens = Math.ceil(text.length / 4)
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  }
  if (body.stream) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    const chunk = (delta: object, finish: string | null, extra: object = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`
    res.write(chunk({ role: 'assistant', content: '' }, null))
    res.write(chunk({ content: text }, null))
    res.write(chunk({}, 'stop', { usage }))
    res.end('data: [DONE]\n\n')
    return
  }
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(
    JSON.stringify({
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage,
    }),
  )
}

/** Reads `/stats` of a scripted judge running in another process: requests, in flight now, most in flight. */
export async function remoteJudgeStats(
  baseURL: string,
): Promise<{ requests: number; inFlight: number; maxInFlight: number }> {
  const res = await fetch(baseURL.replace(/\/v1$/, '/stats'))
  return (await res.json()) as { requests: number; inFlight: number; maxInFlight: number }
}
