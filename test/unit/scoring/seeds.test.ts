/**
 * The seeds' own examples (the createScorer reference and the custom-scorer guide), run with a
 * scripted judge. Where a seed snippet does not compile against the real types (`run.inputData`,
 * `content.length` on a message content object) the corrected access is used and noted.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { MastraDBMessage, ScorerRunInputForAgent } from '../../../src/model/message.ts'
import { createScorer } from '../../../src/scoring/create-scorer.ts'
import { filterRun } from '../../../src/scoring/filter-run.ts'
import { createJudge } from '../../../src/scoring/judge.ts'
import { ScorerRunError } from '../../../src/scoring/scorer-run-error.ts'
import { StreamErrorRetryProcessor } from '../../../src/scoring/stream-error-retry-processor.ts'
import { scriptedJudge } from '../../../src/scoring/testing/scripted-judge.ts'

// ---- The custom-scorer guide's gluten checker, verbatim (model given as a string id) ----

const GLUTEN_INSTRUCTIONS = `You are a Chef that identifies if recipes contain gluten.`

const generateGlutenPrompt = ({ output }: { output: string }) => `Check if this recipe is gluten-free.

Check for:
- Wheat
- Barley
- Rye
- Common sources like flour, pasta, bread

Example with gluten:
"Mix flour and water to make dough"
Response: {
  "isGlutenFree": false,
  "glutenSources": ["flour"]
}

Example gluten-free:
"Mix rice, beans, and vegetables"
Response: {
  "isGlutenFree": true,
  "glutenSources": []
}

Recipe to analyze:
${output}

Return your response in this format:
{
  "isGlutenFree": boolean,
  "glutenSources": ["list ingredients containing gluten"]
}`

const generateReasonPrompt = ({
  isGlutenFree,
  glutenSources,
}: {
  isGlutenFree: boolean
  glutenSources: string[]
}) => `Explain why this recipe is${isGlutenFree ? '' : ' not'} gluten-free.

${glutenSources.length > 0 ? `Sources of gluten: ${glutenSources.join(', ')}` : 'No gluten-containing ingredients found'}

Return your response in this format:
"This recipe is [gluten-free/contains gluten] because [explanation]"`

const glutenCheckerScorer = createScorer({
  id: 'gluten-checker',
  description: 'Check if the output contains any gluten',
  judge: {
    model: 'openai/gpt-5-mini',
    instructions: GLUTEN_INSTRUCTIONS,
  },
})
  .analyze({
    description: 'Analyze the output for gluten',
    outputSchema: z.object({
      isGlutenFree: z.boolean(),
      glutenSources: z.array(z.string()),
    }),
    createPrompt: ({ run }) => {
      const { output } = run
      return generateGlutenPrompt({ output: output.text })
    },
  })
  .generateScore(({ results }) => {
    return results.analyzeStepResult.isGlutenFree ? 1 : 0
  })
  .generateReason({
    description: 'Generate a reason for the score',
    createPrompt: ({ results }) => {
      return generateReasonPrompt({
        glutenSources: results.analyzeStepResult.glutenSources,
        isGlutenFree: results.analyzeStepResult.isGlutenFree,
      })
    },
  })

/** A chef judge: reads the recipe after "Recipe to analyze:" and answers like the seed's outputs. */
function chefJudge() {
  return scriptedJudge(
    [
      (call) => {
        const user = call.prompt.find((m) => m.role === 'user')!
        const text = (user.content as { type: string; text: string }[]).map((p) => p.text).join('\n')
        if (text.startsWith('Explain why')) {
          const sources = /Sources of gluten: (.*)/.exec(text)?.[1]
          return sources
            ? `This recipe is not gluten-free because it contains ${sources}.`
            : 'This recipe is gluten-free because rice, beans, and vegetables are naturally gluten-free.'
        }
        const recipe = /Recipe to analyze:\n(.*)\n/.exec(text)?.[1]?.toLowerCase() ?? ''
        const sources = ['flour', 'soy sauce', 'noodles', 'wheat', 'bread', 'pasta'].filter((w) =>
          recipe.includes(w),
        )
        return JSON.stringify({ isGlutenFree: sources.length === 0, glutenSources: sources })
      },
    ],
    { provider: 'openai.responses', modelId: 'gpt-5-mini' },
  )
}

describe('seed: gluten checker (custom-scorer guide)', () => {
  const cases = [
    {
      recipe: 'Mix rice, beans, and vegetables',
      score: 1,
      analyze: { isGlutenFree: true, glutenSources: [] },
      reason: /^This recipe is gluten-free because/,
    },
    {
      recipe: 'Mix flour and water to make dough',
      score: 0,
      analyze: { isGlutenFree: false, glutenSources: ['flour'] },
      reason: /^This recipe is not gluten-free because it contains flour/,
    },
    {
      recipe: 'Add soy sauce and noodles',
      score: 0,
      analyze: { isGlutenFree: false, glutenSources: ['soy sauce', 'noodles'] },
      reason: /contains soy sauce, noodles/,
    },
  ]
  for (const c of cases) {
    it(`${c.recipe} → ${c.score}`, async () => {
      const judge = chefJudge()
      const asked: string[] = []
      const resolving = createJudge({
        resolveModel: (id) => {
          asked.push(id)
          return judge.model
        },
      })
      const result = await glutenCheckerScorer.run(
        { input: [{ role: 'user', content: c.recipe }], output: { text: c.recipe } },
        { judge: resolving },
      )
      expect(result.score).toBe(c.score)
      expect(result.analyzeStepResult).toEqual(c.analyze)
      expect(result.reason).toMatch(c.reason)
      // The string model id went through the resolver; the judge saw the chef instructions.
      expect(asked).toEqual(['openai/gpt-5-mini', 'openai/gpt-5-mini'])
      expect(judge.calls).toHaveLength(2)
      expect(judge.system(0)).toBe(GLUTEN_INSTRUCTIONS)
      expect(judge.userText(0)).toBe(generateGlutenPrompt({ output: c.recipe }))
      // 'auto' goes native for an OpenAI model: the schema travels as the response format.
      expect(judge.calls[0]!.responseFormat).toMatchObject({
        type: 'json',
        schema: { required: ['isGlutenFree', 'glutenSources'] },
      })
      // generateReason asks for plain text.
      expect(judge.calls[1]!.responseFormat).toBeUndefined()
      expect(result.generateReasonPrompt).toBe(generateReasonPrompt(c.analyze))
      expect(Object.keys(result.judge ?? {})).toEqual(['analyze', 'generateReason'])
    })
  }
})

describe('seed: quote-sources (minimal judge example)', () => {
  it('scores 1 and exposes the judge output as analyzeStepResult', async () => {
    const judge = scriptedJudge(['{"hasSources":true,"sources":["Wikipedia"]}'])
    const quoteSourcesScorer = createScorer({
      id: 'quote-sources',
      description: 'Check if the response includes sources',
      judge: {
        model: 'openai/gpt-5-mini',
        instructions: 'You are a strict evaluator.',
      },
    })
      .analyze({
        description: 'Detect whether sources are present',
        outputSchema: z.object({
          hasSources: z.boolean(),
          sources: z.array(z.string()),
        }),
        createPrompt: ({ run }) => `
Does the response contain sources? Extract them as a list.

Response:
${run.output}
`,
      })
      .generateScore(({ results }) => (results.analyzeStepResult.hasSources ? 1 : 0))

    const result = await quoteSourcesScorer.run(
      {
        input: 'What is the capital of France?',
        output: 'Paris is the capital of France [1]. Source: [1] Wikipedia',
      },
      { judge: createJudge({ resolveModel: () => judge.model }) },
    )
    expect(result.score).toBe(1)
    expect(result.analyzeStepResult).toEqual({ hasSources: true, sources: ['Wikipedia'] })
    expect(judge.system(0)).toBe('You are a strict evaluator.')
    expect(judge.userText(0)).toContain(
      'Response:\nParis is the capital of France [1]. Source: [1] Wikipedia',
    )
  })
})

// ---- Agent-typed examples ----

let seq = 0
function message(role: MastraDBMessage['role'], text: string, parts?: MastraDBMessage['content']['parts']) {
  return {
    id: `m${seq++}`,
    role,
    createdAt: new Date(0),
    content: { format: 2 as const, parts: parts ?? [{ type: 'text' as const, text }], content: text },
  }
}
const toolMessage = (tool: string) =>
  message('assistant', '', [
    {
      type: 'tool-invocation',
      toolInvocation: { toolCallId: 'c1', toolName: tool, args: {}, state: 'result', result: 'ok' },
    },
  ])
const agentInput = (remembered: MastraDBMessage[] = []): ScorerRunInputForAgent => ({
  inputMessages: [message('user', 'What is the weather in Paris?')],
  rememberedMessages: remembered,
  systemMessages: [{ role: 'system', content: 'You are a weather agent.' }],
  taggedSystemMessages: {},
})

describe('seed: agent-typed scorers', () => {
  it('agent-response-quality: preprocess gets the user message, generateScore the response length', async () => {
    const agentScorer = createScorer({
      id: 'agent-response-quality',
      description: 'Evaluates agent responses',
      type: 'agent',
    })
      .preprocess(({ run }) => {
        // seed: run.inputData.inputMessages[0]?.content — the field is run.input
        const userMessage = run.input.inputMessages[0]?.content
        return { userMessage }
      })
      .generateScore(({ run }) => {
        // seed: run.output[0]?.content.length — content is an object; its text is content.content
        const response = run.output[0]?.content.content ?? ''
        return response.length > 10 ? 1.0 : 0.5
      })
    const long = await agentScorer.run({
      input: agentInput(),
      output: [message('assistant', 'It is sunny in Paris.')],
    })
    expect(long.score).toBe(1)
    expect(long.preprocessStepResult?.userMessage?.content).toBe('What is the weather in Paris?')
    const short = await agentScorer.run({ input: agentInput(), output: [message('assistant', 'Sunny.')] })
    expect(short.score).toBe(0.5)
  })

  it('agent-trace-length: scores 1 for a short answer, 0 for one over 50 characters', async () => {
    const agentTraceScorer = createScorer({
      id: 'agent-trace-length',
      description: 'Evaluates agent response length',
      type: 'agent',
    }).generateScore(({ run }) => {
      const agentResponse = run.output[0]?.content.content ?? ''
      return agentResponse.length > 50 ? 0 : 1
    })
    expect(
      (await agentTraceScorer.run({ input: agentInput(), output: [message('assistant', 'Sunny.')] })).score,
    ).toBe(1)
    const long = 'It is sunny in Paris today with a light breeze from the west and 24 degrees.'
    expect(
      (await agentTraceScorer.run({ input: agentInput(), output: [message('assistant', long)] })).score,
    ).toBe(0)
  })

  it('recent-output: a custom prepareRun keeps the last message and drops the request context', async () => {
    const customScorer = createScorer({
      id: 'recent-output',
      description: 'Scores only the last response',
      type: 'agent',
      prepareRun: (run) => ({
        ...run,
        output: run.output.slice(-1),
        requestContext: undefined,
      }),
    }).generateScore(({ run }) => {
      return run.output.length > 0 ? 1 : 0
    })
    const result = await customScorer.run({
      input: agentInput(),
      output: [message('assistant', 'one'), message('assistant', 'two')],
      requestContext: { userId: 'u' },
    })
    expect(result.score).toBe(1)
    expect(result.output.map((m) => m.content.content)).toEqual(['two'])
    expect(result.requestContext).toBeUndefined()
  })

  it('tool-quality: filterRun as prepareRun keeps tool and text messages, at most 20 remembered', async () => {
    let seen: ScorerRunInputForAgent | undefined
    const toolScorer = createScorer({
      id: 'tool-quality',
      description: 'Evaluates tool usage quality',
      type: 'agent',
      prepareRun: filterRun({
        partTypes: ['tool-invocation', 'text'],
        maxRememberedMessages: 20,
      }),
    }).generateScore(({ run }) => {
      seen = run.input
      return 1
    })
    const remembered = [
      ...Array.from({ length: 25 }, (_, i) => message('user', `old ${i}`)),
      message('assistant', '', [{ type: 'reasoning', reasoning: 'hmm', details: [] }]),
      toolMessage('weather'),
    ]
    const result = await toolScorer.run({
      input: agentInput(remembered),
      output: [message('assistant', 'Sunny.')],
    })
    expect(result.score).toBe(1)
    expect(seen?.rememberedMessages).toHaveLength(20)
    expect(seen?.rememberedMessages.at(-1)?.content.parts[0]?.type).toBe('tool-invocation')
    expect(seen?.rememberedMessages.some((m) => m.content.parts[0]?.type === 'reasoning')).toBe(false)
    expect(seen?.systemMessages).toEqual([{ role: 'system', content: 'You are a weather agent.' }])
  })

  it('custom generic types: the score is the output confidence', async () => {
    type CustomInput = { query: string; context: string[] }
    type CustomOutput = { answer: string; confidence: number }
    const customScorer = createScorer<CustomInput, CustomOutput>({
      id: 'custom-scorer',
      description: 'Evaluates custom data',
    }).generateScore(({ run }) => {
      return run.output.confidence
    })
    const result = await customScorer.run({
      input: { query: 'q', context: [] },
      output: { answer: 'a', confidence: 0.8 },
    })
    expect(result.score).toBe(0.8)
  })
})

// ---- The judge-retry example (response-quality) with the real StreamErrorRetryProcessor ----

describe('seed: response-quality with StreamErrorRetryProcessor', () => {
  const isTransientNetworkError = (error: unknown) =>
    error instanceof Error && /ECONNRESET|ETIMEDOUT|socket hang up/i.test(error.message)

  function responseQuality(model: ReturnType<typeof scriptedJudge>['model'], sleeps: number[]) {
    const retryProcessor = new StreamErrorRetryProcessor({
      maxRetries: 2,
      maxRetryAfterMs: 30_000,
      delayMs: ({ retryCount }) => Math.min(1_000 * 2 ** retryCount, 30_000),
      matchers: [isTransientNetworkError],
      retryUnknownErrors: false,
      // recorded instead of waited, so the test does not sleep
      sleep: async (ms) => {
        sleeps.push(ms)
      },
    })
    return createScorer({
      id: 'response-quality',
      description: 'Scores response quality',
      judge: {
        model,
        instructions: 'Return a score and concise reason.',
        errorProcessors: [retryProcessor],
        maxProcessorRetries: 2,
      },
    })
      .generateScore({
        description: 'Score the response quality.',
        createPrompt: ({ run }) => `Score: ${run.output}`,
      })
      .generateReason({
        description: 'Explain the score.',
        createPrompt: () => 'Explain the score.',
      })
  }

  it('a transient failure in generateReason retries only generateReason, with the configured backoff', async () => {
    const judge = scriptedJudge([
      '{"score":0.8}',
      new Error('read ECONNRESET'),
      new Error('socket hang up'),
      'Clear and correct.',
    ])
    const sleeps: number[] = []
    const result = await responseQuality(judge.model, sleeps).run({ output: 'The answer.' })
    expect(result.score).toBe(0.8)
    expect(result.reason).toBe('Clear and correct.')
    expect(judge.calls.map((_, i) => judge.userText(i).split('\n')[0])).toEqual([
      'Score: The answer.',
      'Explain the score.',
      'Explain the score.',
      'Explain the score.',
    ])
    expect(sleeps).toEqual([1_000, 2_000])
    expect(result.judge?.generateScore?.executions[0]?.modelCallCount).toBe(1)
    expect(result.judge?.generateReason?.executions[0]?.modelCallCount).toBe(3)
  })

  it('at most three provider attempts per failed request: initial plus two processor retries', async () => {
    const judge = scriptedJudge([new Error('connect ETIMEDOUT')])
    const sleeps: number[] = []
    const error = (await responseQuality(judge.model, sleeps)
      .run({ output: 'x' })
      .catch((e: unknown) => e)) as ScorerRunError
    expect(error).toBeInstanceOf(ScorerRunError)
    expect(error.failedStep).toBe('generateScore')
    expect(judge.calls).toHaveLength(3)
    expect(sleeps).toEqual([1_000, 2_000])
  })

  it('with the processor’s real timer (short delays), the retried request recovers the same way', async () => {
    const judge = scriptedJudge(['{"score":0.8}', new Error('read ECONNRESET'), 'Recovered.'])
    const retryProcessor = new StreamErrorRetryProcessor({
      maxRetries: 2,
      delayMs: ({ retryCount }) => retryCount + 1,
      matchers: [isTransientNetworkError],
    })
    const result = await createScorer({
      id: 'response-quality',
      description: 'Scores response quality',
      judge: {
        model: judge.model,
        instructions: 'i',
        errorProcessors: [retryProcessor],
        maxProcessorRetries: 2,
      },
    })
      .generateScore({ description: 's', createPrompt: () => 'Score.' })
      .generateReason({ description: 'r', createPrompt: () => 'Explain.' })
      .run({ output: 'x' })
    expect(result.reason).toBe('Recovered.')
    expect(judge.calls).toHaveLength(3)
  })

  it('an error no matcher recognises fails at once (retryUnknownErrors: false)', async () => {
    const judge = scriptedJudge([new Error('invalid request: bad schema')])
    const error = (await responseQuality(judge.model, [])
      .run({ output: 'x' })
      .catch((e: unknown) => e)) as ScorerRunError
    expect(error.failedStep).toBe('generateScore')
    expect(judge.calls).toHaveLength(1)
  })
})
