import type { MastraModelConfig } from '@mastra/core/llm'
import { createAnswerRelevancyScorer, createFaithfulnessScorer } from '@mastra/evals/scorers/prebuilt'
import type { LanguageModel } from 'ai'
import { describe, expectTypeOf, it } from 'vitest'
import { defineConfig } from '../config/define-config.ts'
import { judgeModel } from './governed-judge-model.ts'
import type { JudgeConfig } from './judge-config.ts'

// What the README shows must compile as written: Mastra's scorer factories, tracescore's own
// judges and the AI SDK all take a governed judge model, with no cast.
describe('judgeModel types', () => {
  it('is a model for Mastra, for tracescore judges and for the AI SDK', () => {
    expectTypeOf(judgeModel('openai/gpt-5-mini')).toExtend<MastraModelConfig>()
    expectTypeOf(judgeModel('openai/gpt-5-mini')).toExtend<JudgeConfig['model']>()
    expectTypeOf(judgeModel('openai/gpt-5-mini')).toExtend<LanguageModel>()
  })

  it('goes into @mastra/evals factories and the configuration', () => {
    const config = defineConfig({
      judges: { models: { 'openai/gpt-5-mini': { concurrency: 4, requestsPerMinute: 500 } } },
      scorers: {
        relevancy: { scorer: createAnswerRelevancyScorer({ model: judgeModel('openai/gpt-5-mini') }) },
        faithfulness: { scorer: createFaithfulnessScorer({ model: judgeModel({ id: 'ollama/llama3.2' }) }) },
      },
    })
    expectTypeOf(config).not.toBeAny()
  })
})
