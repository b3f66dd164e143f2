// The default tracescore configuration: `tracescore run` uses it when no --config is given.
// Scorers are code: import them, register them by name with sampling and filters.
// Every infrastructure value can be overridden from the environment (see README "Configuration").
import { defineConfig } from 'tracescore'
import { answeredScorer } from './scorers/answered.ts'
import { createHelpfulnessScorer } from './scorers/helpfulness.ts'
import { toolSuccessScorer } from './scorers/tool-success.ts'

const judgeModel = process.env.TRACESCORE_JUDGE_MODEL // e.g. 'openai/gpt-5-mini' (needs OPENAI_API_KEY)

export default defineConfig({
  kafka: { brokers: ['127.0.0.1:9092'], topic: 'otlp_spans', groupId: 'tracescore', encoding: 'auto' },
  assembly: { settleMs: 2_000, maxTraceAgeMs: 120_000 },
  judges: { defaultLimits: { concurrency: 4 }, timeoutMs: 60_000 },
  scorers: {
    answered: { scorer: answeredScorer },
    toolSuccess: { scorer: toolSuccessScorer },
    ...(judgeModel
      ? {
          helpfulness: {
            scorer: createHelpfulnessScorer(judgeModel),
            sampling: { type: 'ratio', rate: 0.1 },
          },
        }
      : {}),
  },
  sinks: { otlp: {} },
})
