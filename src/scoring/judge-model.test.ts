import { createProviderRegistry } from 'ai'
import { MockProviderV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { messageText, type ScriptedJudgeServer, startScriptedJudge } from '../demo/scripted-judge-server.ts'
import { createScorer } from './create-scorer.ts'
import { createJudge } from './judge.ts'
import type { JudgeConfig } from './judge-config.ts'
import { createEnvJudgeModelResolver, JudgeModelResolutionError } from './judge-model.ts'
import { ScorerRunError } from './scorer-run-error.ts'
import { StreamErrorRetryProcessor } from './stream-error-retry-processor.ts'
import { scriptedJudge } from './testing/scripted-judge.ts'

describe('createEnvJudgeModelResolver', () => {
  it('resolves openai and anthropic models when their keys are set', async () => {
    const resolve = createEnvJudgeModelResolver({ OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' })
    const openai = await resolve('openai/gpt-5-mini')
    expect(openai.provider).toMatch(/^openai\./)
    expect(openai.modelId).toBe('gpt-5-mini')
    const anthropic = await resolve('anthropic/claude-sonnet-4-5')
    expect(anthropic.provider).toMatch(/^anthropic\./)
    expect(anthropic.modelId).toBe('claude-sonnet-4-5')
    expect(await resolve('openai/gpt-5-mini')).toBe(openai)
  })

  it('names the missing key, the unknown provider, or the malformed id', () => {
    const resolve = createEnvJudgeModelResolver({})
    expect(() => resolve('openai/gpt-5-mini')).toThrow(
      new JudgeModelResolutionError(
        "Judge model 'openai/gpt-5-mini': provider 'openai' needs OPENAI_API_KEY in the environment",
      ),
    )
    expect(() => resolve('anthropic/claude')).toThrow(/ANTHROPIC_API_KEY/)
    expect(() => resolve('acme-ai/judge')).toThrow(/unknown provider 'acme-ai'.*ACME_AI_BASE_URL/)
    expect(() => resolve('gpt-5-mini')).toThrow(/not of the form 'provider\/model'/)
  })

  it('OpenAI-compatible endpoints: <NAME>_BASE_URL, and local defaults for ollama', async () => {
    const resolve = createEnvJudgeModelResolver({ VLLM_BASE_URL: 'http://127.0.0.1:9/v1' })
    expect((await resolve('vllm/qwen3')).provider).toBe('vllm.chat')
    expect((await resolve('ollama/llama3.2')).provider).toBe('ollama.chat')
    expect((await resolve('ollama/library/llama3')).modelId).toBe('library/llama3')
  })
})

describe('judge models given as strings', () => {
  it("go through the judge's resolver, a provider registry included", async () => {
    const judge = scriptedJudge(['{"score":0.5}'])
    const resolving = createJudge({
      resolveModel: createProviderRegistry({
        acme: new MockProviderV4({ languageModels: { 'judge-1': judge.model } }),
      }),
    })
    const result = await createScorer({
      id: 's',
      description: 'd',
      judge: { model: 'acme/judge-1', instructions: 'i' },
    })
      .generateScore({ description: 's', createPrompt: () => 'p' })
      .run({ output: 'o' }, { judge: resolving })
    expect(result.score).toBe(0.5)
    expect(judge.calls).toHaveLength(1)
  })

  it('an unresolvable model fails the step with the resolver’s message', async () => {
    const resolving = createJudge({ resolveModel: createEnvJudgeModelResolver({}) })
    const error = (await createScorer({
      id: 's',
      description: 'd',
      judge: { model: 'openai/gpt-5-mini', instructions: 'i' },
    })
      .generateScore({ description: 's', createPrompt: () => 'p' })
      .run({ output: 'o' }, { judge: resolving })
      .catch((e: unknown) => e)) as ScorerRunError
    expect(error).toBeInstanceOf(ScorerRunError)
    expect(error.failedStep).toBe('generateScore')
    expect(error.message).toContain('needs OPENAI_API_KEY')
  })
})

/** Starts a scripted judge answering with `answer`, runs `test` against it, then closes it. */
async function withScriptedJudge(
  answer: Parameters<typeof startScriptedJudge>[0],
  test: (server: ScriptedJudgeServer) => Promise<void>,
): Promise<void> {
  const server = await startScriptedJudge(answer)
  try {
    await test(server)
  } finally {
    await server.close()
  }
}

/** A judge that resolves `vllm/<model>` to the scripted judge `server`. */
const vllmJudge = (server: ScriptedJudgeServer) =>
  createJudge({ resolveModel: createEnvJudgeModelResolver({ VLLM_BASE_URL: server.baseURL }) })

describe('an OpenAI-compatible endpoint over HTTP (scripted judge on 127.0.0.1)', () => {
  it('resolves vllm/<model> from VLLM_BASE_URL and speaks the real chat-completions protocol', async () => {
    await withScriptedJudge(
      ({ messages }) =>
        messages.at(-1)?.role === 'user' && messageText(messages.at(-1)!).includes('JSON')
          ? '{"isGlutenFree":false,"glutenSources":["flour"]}'
          : 'It contains flour.',
      async (server) => {
        const resolving = vllmJudge(server)
        const result = await createScorer({
          id: 'gluten',
          description: 'd',
          judge: { model: 'vllm/judge-1', instructions: 'You are a chef.' },
        })
          .analyze({
            description: 'a',
            outputSchema: z.object({ isGlutenFree: z.boolean(), glutenSources: z.array(z.string()) }),
            createPrompt: ({ run }) => `Recipe: ${run.output}`,
          })
          .generateScore(({ results }) => (results.analyzeStepResult.isGlutenFree ? 1 : 0))
          .generateReason({ description: 'r', createPrompt: () => 'Explain.' })
          .run({ output: 'Mix flour and water' }, { judge: resolving })
        expect(result.score).toBe(0)
        expect(result.reason).toBe('It contains flour.')
        expect(server.requests).toHaveLength(2)
        const [first] = server.requests
        expect(first!.model).toBe('judge-1')
        expect(first!.messages[0]).toEqual({ role: 'system', content: 'You are a chef.' })
        // 'auto' for an OpenAI-compatible endpoint: schema inlined, no response_format sent
        expect(messageText(first!.messages[1]!)).toContain(
          'Return your response as JSON matching this schema:',
        )
        expect(first!.body.response_format).toBeUndefined()
        expect(result.judge?.analyze?.executions[0]?.usage?.totalTokens).toBeGreaterThan(0)
        expect(result.judge?.analyze?.executions[0]?.judgeProvider).toBe('vllm.chat')
      },
    )
  })

  it("Mastra's config object { id, url } reaches the endpoint without any resolver", async () => {
    await withScriptedJudge(
      () => '{"score":0.6}',
      async (server) => {
        const resolving = createJudge({
          resolveModel: () => {
            throw new Error('resolver must not be asked')
          },
        })
        const scorer = (model: JudgeConfig['model']) =>
          createScorer({ id: 's', description: 'd', judge: { model, instructions: 'i' } }).generateScore({
            description: 's',
            createPrompt: () => 'p',
          })
        const a = await scorer({ id: 'vllm/judge-a', url: server.baseURL }).run(
          { output: 'o' },
          { judge: resolving },
        )
        const b = await scorer({
          providerId: 'lab',
          modelId: 'judge-b',
          url: server.baseURL,
          apiKey: 'k',
        }).run({ output: 'o' }, { judge: resolving })
        expect([a.score, b.score]).toEqual([0.6, 0.6])
        expect(server.requests.map((r) => r.model)).toEqual(['judge-a', 'judge-b'])
        expect(a.judge?.generateScore?.executions[0]?.judgeProvider).toBe('vllm.chat')
      },
    )
  })

  it('a provider 500 is retried by StreamErrorRetryProcessor through isRetryable metadata', async () => {
    let calls = 0
    await withScriptedJudge(
      () => {
        calls++
        if (calls === 1) throw new Error('upstream overloaded')
        return '{"score":0.9}'
      },
      async (server) => {
        const resolving = vllmJudge(server)
        const result = await createScorer({
          id: 's',
          description: 'd',
          judge: {
            model: 'vllm/judge-1',
            instructions: 'i',
            errorProcessors: [new StreamErrorRetryProcessor({ maxRetries: 1 })],
          },
        })
          .generateScore({ description: 's', createPrompt: () => 'p' })
          .run({ output: 'o' }, { judge: resolving })
        expect(result.score).toBe(0.9)
        expect(server.requests).toHaveLength(2)
      },
    )
  })
})
