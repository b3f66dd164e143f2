import { APICallError } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createScorer } from './create-scorer.ts'
import type { JsonPromptInjection, JudgeConfig } from './judge-config.ts'
import { createJudgeLimiter, type JudgeCallKey, type JudgeLimiter } from './judge-limiter.ts'
import { JudgeTimeoutError, type ProcessorAbortError, parseJsonAnswer } from './judge-request.ts'
import type { Processor } from './processor.ts'
import { ScorerRunError } from './scorer-run-error.ts'
import { scriptedJudge } from './testing/scripted-judge.ts'

const schema = z.object({ ok: z.boolean() })
const SCHEMA_JSON =
  '{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}'
const SYSTEM_SUFFIX = `\n\nJSON schema:\n${SCHEMA_JSON}\nYou MUST answer with a JSON object that matches the JSON schema above.`
const INLINE_PART = `Return your response as JSON matching this schema:\n\n${SCHEMA_JSON}\n\nReturn only valid JSON. Do not include markdown or explanatory text.`

const transient = (message = 'overloaded') =>
  new APICallError({ message, url: 'http://x', requestBodyValues: {}, statusCode: 503, isRetryable: true })

function analyzeScorer(judge: Partial<JudgeConfig> & Pick<JudgeConfig, 'model'>) {
  return createScorer({ id: 's', description: 'd', judge: { instructions: 'Judge.', ...judge } })
    .analyze({ description: 'a', outputSchema: schema, createPrompt: () => 'Is it ok?' })
    .generateScore(({ results }) => (results.analyzeStepResult.ok ? 1 : 0))
}

function userParts(judge: ReturnType<typeof scriptedJudge>, i: number): string[] {
  const user = judge.calls[i]!.prompt.find((m) => m.role === 'user')!
  return (user.content as { type: string; text: string }[]).map((p) => p.text)
}

describe('jsonPromptInjection: where the schema reaches the judge', () => {
  const cases: [JsonPromptInjection, 'native' | 'system' | 'inline'][] = [
    [false, 'native'],
    [true, 'system'],
    ['system', 'system'],
    ['inline', 'inline'],
    ['auto', 'inline'],
  ]
  for (const [mode, placement] of cases) {
    it(`${String(mode)} → ${placement}`, async () => {
      const judge = scriptedJudge(['{"ok":true}'])
      const result = await analyzeScorer({ model: judge.model, jsonPromptInjection: mode }).run({
        output: 'o',
      })
      expect(result.score).toBe(1)
      const call = judge.calls[0]!
      expect(call.responseFormat).toEqual(
        placement === 'native' ? { type: 'json', schema: JSON.parse(SCHEMA_JSON) } : undefined,
      )
      expect(judge.system(0)).toBe(placement === 'system' ? `Judge.${SYSTEM_SUFFIX}` : 'Judge.')
      expect(userParts(judge, 0)).toEqual(placement === 'inline' ? ['Is it ok?', INLINE_PART] : ['Is it ok?'])
    })
  }

  it("'auto' (the default) is native for known providers such as OpenAI", async () => {
    const judge = scriptedJudge(['{"ok":true}'], { provider: 'openai.responses', modelId: 'gpt-5-mini' })
    await analyzeScorer({ model: judge.model }).run({ output: 'o' })
    expect(judge.calls[0]!.responseFormat).toMatchObject({ type: 'json' })
    expect(judge.calls[0]!.providerOptions).toEqual({ openai: { strictJsonSchema: true } })
    expect(userParts(judge, 0)).toEqual(['Is it ok?'])
  })

  it("'auto' follows the runtime's supportsStructuredOutput decision", async () => {
    const judge = scriptedJudge(['{"ok":true}'])
    await analyzeScorer({ model: judge.model }).run(
      { output: 'o' },
      { judge: { supportsStructuredOutput: () => true } },
    )
    expect(judge.calls[0]!.responseFormat).toMatchObject({ type: 'json' })
  })
})

describe('answer that is not valid JSON: one retry with the schema injected', () => {
  it('native first, then the schema in the system message; attemptCount 2', async () => {
    const judge = scriptedJudge(['Sure! It is ok.', '{"ok":false}'])
    const result = await analyzeScorer({ model: judge.model, jsonPromptInjection: false }).run({
      output: 'o',
    })
    expect(result.score).toBe(0)
    expect(judge.calls).toHaveLength(2)
    expect(judge.calls[0]!.responseFormat).toMatchObject({ type: 'json' })
    expect(judge.calls[1]!.responseFormat).toBeUndefined()
    expect(judge.system(1)).toBe(`Judge.${SYSTEM_SUFFIX}`)
    expect(result.judge?.analyze?.executions[0]).toMatchObject({
      attemptCount: 2,
      modelCallCount: 2,
      usage: { inputTokens: 20, outputTokens: 10, totalTokens: 20 + 10 },
    })
  })

  it("'inline' retries inline, and fallbackJsonPromptInjection overrides the placement", async () => {
    const a = scriptedJudge(['nope', '{"ok":true}'])
    await analyzeScorer({ model: a.model, jsonPromptInjection: 'inline' }).run({ output: 'o' })
    expect(userParts(a, 1)).toEqual(['Is it ok?', INLINE_PART])
    const b = scriptedJudge(['nope', '{"ok":true}'])
    await analyzeScorer({
      model: b.model,
      jsonPromptInjection: false,
      fallbackJsonPromptInjection: 'inline',
    }).run({
      output: 'o',
    })
    expect(userParts(b, 1)).toEqual(['Is it ok?', INLINE_PART])
    expect(b.system(1)).toBe('Judge.')
  })

  it('an answer that parses but does not match the schema also gets the one retry', async () => {
    const judge = scriptedJudge(['{"ok":"yes"}', '{"ok":true}'])
    const result = await analyzeScorer({ model: judge.model }).run({ output: 'o' })
    expect(result.score).toBe(1)
    expect(judge.calls).toHaveLength(2)
  })

  it('a second bad answer fails the step, with the raw output in the failed judge record', async () => {
    const judge = scriptedJudge(['nope', 'still nope'])
    const error = (await analyzeScorer({ model: judge.model })
      .run({ output: 'o' })
      .catch((e: unknown) => e)) as ScorerRunError
    expect(judge.calls).toHaveLength(2)
    expect(error.failedStep).toBe('analyze')
    expect(error.result?.judge?.analyze?.executions[0]).toMatchObject({
      status: 'failed',
      attemptCount: 2,
      modelCallCount: 2,
      rawOutput: 'still nope',
      finishReason: 'stop',
      error: { name: 'JudgeFormatError' },
    })
  })

  it('tolerates one markdown code fence around the JSON', () => {
    expect(parseJsonAnswer('```json\n{"a":1}\n```')).toEqual({ ok: true, value: { a: 1 } })
    expect(parseJsonAnswer('{"a":1} trailing')).toEqual({ ok: false })
  })
})

describe('processors', () => {
  it('input processors see the messages before the model; output processors the text before parsing', async () => {
    const judge = scriptedJudge(['{"ok": "YES"}'])
    const seenMessages: unknown[] = []
    const redact: Processor = {
      id: 'redact',
      processInput: ({ messages }) => {
        seenMessages.push(structuredClone(messages))
        return messages.map((m) =>
          m.role === 'user' ? { ...m, content: [{ type: 'text', text: 'REDACTED' }] } : m,
        )
      },
    }
    const normalize: Processor = {
      id: 'normalize',
      processOutputResult: ({ text }) => text.replace('"YES"', 'true'),
    }
    const result = await analyzeScorer({
      model: judge.model,
      inputProcessors: [redact],
      outputProcessors: [normalize],
    }).run({ output: 'o' })
    expect(result.score).toBe(1)
    expect(seenMessages).toEqual([
      [
        { role: 'system', content: 'Judge.' },
        { role: 'user', content: [{ type: 'text', text: 'Is it ok?' }] },
      ],
    ])
    expect(userParts(judge, 0)[0]).toBe('REDACTED')
  })

  it('an input processor that aborts stops the request before any model call', async () => {
    const judge = scriptedJudge(['{"ok":true}'])
    const guard: Processor = { id: 'guard', processInput: ({ abort }) => abort('prompt too long') }
    const error = (await analyzeScorer({ model: judge.model, inputProcessors: [guard] })
      .run({ output: 'o' })
      .catch((e: unknown) => e)) as ScorerRunError
    expect(judge.calls).toHaveLength(0)
    expect(error.failedStep).toBe('analyze')
    expect(error.message).toBe('Scorer Run Failed: prompt too long')
    expect((error.cause as ProcessorAbortError).processorId).toBe('guard')
    expect(error.result?.judge).toBeUndefined()
  })

  it('processAPIError is asked on input, output, then error processors; the first retry:true wins', async () => {
    const order: string[] = []
    const make = (id: string, retry: boolean): Processor => ({
      id,
      processAPIError: ({ error, retryCount, messages }) => {
        order.push(`${id}:${retryCount}:${(error as Error).message}:${messages.length}`)
        return { retry }
      },
    })
    const judge = scriptedJudge([transient('first'), '{"ok":true}'])
    const result = await analyzeScorer({
      model: judge.model,
      inputProcessors: [make('in', false)],
      outputProcessors: [make('out', true)],
      errorProcessors: [make('err', true)],
    }).run({ output: 'o' })
    expect(result.score).toBe(1)
    expect(order).toEqual(['in:0:first:2', 'out:0:first:2'])
  })

  it('maxProcessorRetries defaults to 10 when errorProcessors is set (seed; Mastra uses 3)', async () => {
    let asked = 0
    const judge = scriptedJudge([transient()])
    const error = (await analyzeScorer({
      model: judge.model,
      errorProcessors: [
        {
          id: 'retry',
          processAPIError: () => {
            asked++
            return { retry: true }
          },
        },
      ],
    })
      .run({ output: 'o' })
      .catch((e: unknown) => e)) as ScorerRunError
    expect(judge.calls).toHaveLength(11)
    expect(asked).toBe(11)
    expect(error.result?.judge?.analyze?.executions[0]).toMatchObject({ modelCallCount: 11, attemptCount: 1 })
  })

  it('an explicit maxProcessorRetries caps retries; without errorProcessors there are none', async () => {
    const retry: Processor = { id: 'r', processAPIError: () => ({ retry: true }) }
    const capped = scriptedJudge([transient()])
    await analyzeScorer({ model: capped.model, errorProcessors: [retry], maxProcessorRetries: 2 })
      .run({ output: 'o' })
      .catch(() => undefined)
    expect(capped.calls).toHaveLength(3)
    const none = scriptedJudge([transient()])
    await analyzeScorer({ model: none.model, inputProcessors: [retry] })
      .run({ output: 'o' })
      .catch(() => undefined)
    expect(none.calls).toHaveLength(1)
  })

  it("the AI SDK's own retries are off unless modelSettings.maxRetries asks for them", async () => {
    const off = scriptedJudge([transient(), '{"ok":true}'])
    await analyzeScorer({ model: off.model })
      .run({ output: 'o' })
      .catch(() => undefined)
    expect(off.calls).toHaveLength(1)
    // retry-after-ms keeps the SDK's backoff short
    const quick = new APICallError({
      message: 'busy',
      url: 'http://x',
      requestBodyValues: {},
      statusCode: 503,
      isRetryable: true,
      responseHeaders: { 'retry-after-ms': '1' },
    })
    const on = scriptedJudge([quick, '{"ok":true}'])
    const result = await analyzeScorer({ model: on.model, modelSettings: { maxRetries: 1 } }).run({
      output: 'o',
    })
    expect(result.score).toBe(1)
    expect(on.calls).toHaveLength(2)
  })

  it('a processor that throws is skipped; one that aborts ends the request without retry', async () => {
    const judge = scriptedJudge([transient(), '{"ok":true}'])
    const result = await analyzeScorer({
      model: judge.model,
      errorProcessors: [
        {
          id: 'broken',
          processAPIError: () => {
            throw new Error('processor bug')
          },
        },
        { id: 'ok', processAPIError: () => ({ retry: true }) },
      ],
    }).run({ output: 'o' })
    expect(result.score).toBe(1)

    const aborting = scriptedJudge([transient(), '{"ok":true}'])
    const error = (await analyzeScorer({
      model: aborting.model,
      errorProcessors: [{ id: 'guard', processAPIError: ({ abort }) => abort('do not retry this') }],
    })
      .run({ output: 'o' })
      .catch((e: unknown) => e)) as ScorerRunError
    expect(aborting.calls).toHaveLength(1)
    expect(error.message).toBe('Scorer Run Failed: do not retry this')
  })
})

describe('timeout, cancellation, limiter, usage', () => {
  const hanging = () =>
    new MockLanguageModelV4({
      doGenerate: ({ abortSignal }) =>
        new Promise((_, reject) => {
          if (abortSignal?.aborted) reject(abortSignal.reason)
          abortSignal?.addEventListener('abort', () => reject(abortSignal.reason))
        }),
    })

  it('a request that exceeds timeoutMs fails with JudgeTimeoutError', async () => {
    const error = (await analyzeScorer({ model: hanging(), timeoutMs: 5 })
      .run({ output: 'o' })
      .catch((e: unknown) => e)) as ScorerRunError
    expect(error.cause).toBeInstanceOf(JudgeTimeoutError)
    expect(error.message).toBe('Scorer Run Failed: Judge request timed out after 5 ms')
  })

  it('the runtime timeout applies when the judge sets none', async () => {
    const error = (await analyzeScorer({ model: hanging() })
      .run({ output: 'o' }, { judge: { timeoutMs: 5 } })
      .catch((e: unknown) => e)) as ScorerRunError
    expect(error.cause).toBeInstanceOf(JudgeTimeoutError)
  })

  it('the caller’s abortSignal cancels the judge call and is not retried', async () => {
    const controller = new AbortController()
    const asked: number[] = []
    const run = analyzeScorer({
      model: hanging(),
      errorProcessors: [
        {
          id: 'r',
          processAPIError: ({ retryCount }) => {
            asked.push(retryCount)
            return { retry: true }
          },
        },
      ],
    }).run({ output: 'o' }, { abortSignal: controller.signal })
    await new Promise((r) => setImmediate(r))
    controller.abort(new Error('shutting down'))
    const error = (await run.catch((e: unknown) => e)) as ScorerRunError
    expect(error).toBeInstanceOf(ScorerRunError)
    expect(error.message).toBe('Scorer Run Failed: shutting down')
    expect(asked).toEqual([])

    const already = scriptedJudge(['{"ok":true}'])
    await analyzeScorer({ model: already.model })
      .run({ output: 'o' }, { abortSignal: AbortSignal.abort() })
      .catch(() => undefined)
    expect(already.calls).toHaveLength(0)
  })

  it('every model call, retries included, goes through the limiter with the model key', async () => {
    const keys: JudgeCallKey[] = []
    const results: unknown[] = []
    const limiter: JudgeLimiter = {
      async schedule(key, call) {
        keys.push(key)
        const value = await call()
        results.push(value)
        return value
      },
    }
    const judge = scriptedJudge([transient(), '{"ok":true}'], { provider: 'acme.chat', modelId: 'judge-1' })
    await analyzeScorer({
      model: judge.model,
      errorProcessors: [{ id: 'r', processAPIError: () => ({ retry: true }) }],
    }).run({ output: 'o' }, { judge: { limiter } })
    expect(keys).toEqual([
      { model: 'acme/judge-1', provider: 'acme.chat', modelId: 'judge-1' },
      { model: 'acme/judge-1', provider: 'acme.chat', modelId: 'judge-1' },
    ])
    // a limiter can read the tokens each call used
    expect(results).toEqual([
      expect.objectContaining({ text: '{"ok":true}', usage: expect.objectContaining({ totalTokens: 15 }) }),
    ])
  })

  it('createJudgeLimiter: an aborted run leaves the queue without taking a slot', async () => {
    const limiter = createJudgeLimiter({ maxConcurrency: 1 })
    const key: JudgeCallKey = { model: 'a/m', provider: 'a', modelId: 'm' }
    let release!: () => void
    const first = limiter.schedule(key, () => new Promise<string>((r) => (release = () => r('first'))))
    const controller = new AbortController()
    let ranAborted = false
    const aborted = limiter.schedule(
      key,
      async () => {
        ranAborted = true
        return 'aborted'
      },
      controller.signal,
    )
    const third = limiter.schedule(key, async () => 'third')
    controller.abort(new Error('stop'))
    await expect(aborted).rejects.toThrow('stop')
    release()
    expect(await first).toBe('first')
    expect(await third).toBe('third')
    expect(ranAborted).toBe(false)
  })

  it('createJudgeLimiter keeps at most N calls per model in flight', async () => {
    const limiter = createJudgeLimiter({ maxConcurrency: 2, perModel: { 'a/slow': 1 } })
    let inFlight = 0
    let peak = 0
    const task = async () => {
      inFlight++
      peak = Math.max(peak, inFlight)
      await new Promise((r) => setImmediate(r))
      inFlight--
    }
    const key = (model: string): JudgeCallKey => ({ model, provider: 'a', modelId: model.slice(2) })
    await Promise.all(Array.from({ length: 6 }, () => limiter.schedule(key('a/fast'), task)))
    expect(peak).toBe(2)
    peak = 0
    await Promise.all(Array.from({ length: 4 }, () => limiter.schedule(key('a/slow'), task)))
    expect(peak).toBe(1)
  })
})
