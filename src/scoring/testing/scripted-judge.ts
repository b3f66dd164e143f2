import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { MockLanguageModelV4 } from 'ai/test'

/** One scripted judge turn: the answer text, an error to throw, or a function of the request. */
export type JudgeTurn = string | Error | ((call: LanguageModelV4CallOptions) => string | Error)

/** The judge as tests see it: the mock model plus what it received. */
export interface ScriptedJudge {
  model: MockLanguageModelV4
  /** Every request, in order (generate and stream calls together). */
  calls: LanguageModelV4CallOptions[]
  /** The system message text of request `i`. */
  system(i: number): string | undefined
  /** All user text parts of request `i`, joined by a blank line. */
  userText(i: number): string
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}

/**
 * A judge played by the AI SDK's `MockLanguageModelV4`: answers the scripted turns in order
 * (the last one repeats), through both `doGenerate` (tracescore) and `doStream` (Mastra).
 */
export function scriptedJudge(
  turns: JudgeTurn[],
  options: { provider?: string; modelId?: string } = {},
): ScriptedJudge {
  const calls: LanguageModelV4CallOptions[] = []
  const next = (call: LanguageModelV4CallOptions): string => {
    calls.push(call)
    const turn = turns[Math.min(calls.length - 1, turns.length - 1)]!
    const value = typeof turn === 'function' ? turn(call) : turn
    if (value instanceof Error) throw value
    return value
  }
  const model = new MockLanguageModelV4({
    provider: options.provider ?? 'mock-provider',
    modelId: options.modelId ?? 'mock-judge',
    doGenerate: async (call) => {
      const text = next(call)
      return {
        content: [{ type: 'text', text }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      }
    },
    doStream: async (call) => {
      const text = next(call)
      const parts: LanguageModelV4StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: text },
        { type: 'text-end', id: 't' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
      ]
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part)
            controller.close()
          },
        }),
      }
    },
  })
  const textsOf = (i: number, role: string) =>
    (calls[i]?.prompt ?? [])
      .filter((m) => m.role === role)
      .flatMap((m) =>
        typeof m.content === 'string'
          ? [m.content]
          : (m.content as { type: string; text?: string }[])
              .filter((p) => p.type === 'text')
              .map((p) => p.text ?? ''),
      )
  return {
    model,
    calls,
    system: (i) => textsOf(i, 'system')[0],
    userText: (i) => textsOf(i, 'user').join('\n\n'),
  }
}
