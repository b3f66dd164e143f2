import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { generateText, streamText } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { messageText, remoteJudgeStats, startScriptedJudge } from './scripted-judge-server.ts'

describe('scripted OpenAI-compatible judge', () => {
  let judge: Awaited<ReturnType<typeof startScriptedJudge>>
  beforeAll(async () => {
    judge = await startScriptedJudge(({ messages }) => `echo: ${messageText(messages.at(-1)!)}`)
  })
  afterAll(() => judge.close())

  it('answers the AI SDK through @ai-sdk/openai-compatible and records what it received', async () => {
    const provider = createOpenAICompatible({ name: 'scripted', baseURL: judge.baseURL })
    const result = await generateText({ model: provider('judge-1'), system: 'be fair', prompt: 'rate this' })
    expect(result.text).toBe('echo: rate this')
    expect(result.usage.inputTokens).toBeGreaterThan(0)
    const last = judge.requests.at(-1)!
    expect(last.model).toBe('judge-1')
    expect(last.messages[0]).toEqual({ role: 'system', content: 'be fair' })
  })

  it('streams when asked', async () => {
    const provider = createOpenAICompatible({ name: 'scripted', baseURL: judge.baseURL })
    const result = streamText({ model: provider('judge-1'), prompt: 'streamed' })
    expect(await result.text).toBe('echo: streamed')
  })

  it('answers an HTTP error when the policy says so, after the latency, counting requests in flight', async () => {
    let calls = 0
    const slow = await startScriptedJudge(
      () => (++calls === 1 ? { status: 503, type: 'overloaded', message: 'try later' } : '{"score":1}'),
      { latencyMs: 1_000 },
    )
    try {
      const provider = createOpenAICompatible({ name: 'scripted', baseURL: slow.baseURL })
      const first = generateText({ model: provider('judge-1'), prompt: 'a', maxRetries: 0 })
      const failed = first.catch((e: unknown) => e)
      // Received, and held for the latency before its answer.
      while (slow.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
      expect(slow.inFlight()).toBe(1)
      expect(await failed).toMatchObject({ statusCode: 503, message: 'try later' })
      const second = await generateText({ model: provider('judge-1'), prompt: 'b' })
      expect(second.text).toBe('{"score":1}')
      expect(await remoteJudgeStats(slow.baseURL)).toEqual({ requests: 2, inFlight: 0, maxInFlight: 1 })
    } finally {
      await slow.close()
    }
  })
})
