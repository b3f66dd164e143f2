import { createServer, type IncomingMessage } from 'node:http'

/** A chat message as the OpenAI chat-completions API carries it. */
export interface ChatMessage {
  role: string
  content: string | { type: string; text?: string }[] | null
}

/** Decides the judge's answer text from the request it received. */
export type JudgePolicy = (request: {
  model: string
  messages: ChatMessage[]
  body: Record<string, unknown>
}) => string

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

/**
 * A scripted OpenAI-compatible judge on 127.0.0.1: `POST /v1/chat/completions` (plain or
 * streamed) answered by a policy function. It stands in for the LLM provider in the demo and
 * the tests, where no network exists; it is labelled as scripted wherever it is used.
 */
export async function startScriptedJudge(policy: JudgePolicy, port = 0) {
  const requests: RecordedJudgeRequest[] = []
  let counter = 0
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}')
      return
    }
    const body = await readJson(req)
    const model = String(body.model ?? 'scripted-judge')
    const messages = (body.messages ?? []) as ChatMessage[]
    requests.push({ model, messages, body })
    let text: string
    try {
      text = policy({ model, messages, body })
    } catch (error) {
      res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: (error as Error).message, type: 'server_error' } }))
      return
    }
    const id = `chatcmpl-scripted-${++counter}`
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
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()))
  const address = server.address()
  const actualPort = typeof address === 'object' && address ? address.port : port
  return {
    /** Base URL to give an OpenAI-compatible provider (`.../v1`). */
    baseURL: `http://127.0.0.1:${actualPort}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
