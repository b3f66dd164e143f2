import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { generateText, streamText } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { messageText, startScriptedJudge } from './scripted-judge-server.ts'

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
})
