/**
 * The scripted judge (`src/demo/scripted-judge-server.ts`) as fault tests and the judge benchmark
 * use it (no LLM is called): answers after a fixed latency, failures injected per request by a
 * policy (transient 503s, permanent errors), and every request logged with its attempt number.
 */
import { messageText, remoteJudgeStats, startScriptedJudge } from '../../src/demo/scripted-judge-server.ts'

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
  /** Requests received, in order, with the status answered and the answer text (`at`: when received). */
  readonly log: { prompt: string; attempt: number; status: number; at: number; reply?: string }[]
  /** Requests per prompt. */
  readonly attempts: Map<string, number>
  /**
   * With `keyOf`: the arrival times (epoch ms) of the requests per key, e.g. per (trace, agent
   * span, scorer) named in the prompt, to count repeated judge requests across processes.
   */
  readonly byKey: Map<string, number[]>
  inFlight(): number
  /** Most requests ever in flight at once (measured in the server). */
  maxInFlight(): number
  close(): Promise<void>
}

/** Starts the judge; `latencyMs` is added to every answer, failures included (a function: drawn per request). */
export async function startFaultJudge(options: {
  latencyMs: number | (() => number)
  policy: (request: FaultJudgeRequest) => FaultJudgeReply
  /** The key a request counts under in `byKey` (undefined: not counted). */
  keyOf?: (prompt: string) => string | undefined
}): Promise<FaultJudge> {
  const log: FaultJudge['log'] = []
  const attempts = new Map<string, number>()
  const byKey = new Map<string, number[]>()
  let seq = 0
  const server = await startScriptedJudge(
    ({ messages }) => {
      const prompt = messages
        .filter((m) => m.role !== 'system')
        .map(messageText)
        .join('\n')
      const attempt = attempts.get(prompt) ?? 0
      attempts.set(prompt, attempt + 1)
      const key = options.keyOf?.(prompt)
      if (key !== undefined) byKey.set(key, [...(byKey.get(key) ?? []), Date.now()])
      const reply = options.policy({ prompt, attempt, seq: seq++ })
      log.push({
        prompt,
        attempt,
        status: 'text' in reply ? 200 : reply.status,
        at: Date.now(),
        ...('text' in reply ? { reply: reply.text } : {}),
      })
      return 'text' in reply ? reply.text : reply
    },
    { latencyMs: options.latencyMs },
  )
  return {
    baseURL: server.baseURL,
    log,
    attempts,
    byKey,
    inFlight: server.inFlight,
    maxInFlight: server.maxInFlight,
    close: server.close,
  }
}

/** Reads `/stats` of a judge running in another process: requests, in flight now, most in flight. */
export { remoteJudgeStats }

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
