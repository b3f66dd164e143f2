/**
 * Scorer benchmark: runs/s of a function-only four-step scorer (preprocess → analyze →
 * generateScore → generateReason) built with tracescore's `createScorer`, against the same
 * definition built with `@mastra/core`'s (the baseline, measured in the same run, interleaved
 * rounds, best round of each kept). A second row measures the judge path: an analyze prompt
 * step and a prompt generateReason against an instant scripted judge (`ai/test` mock), i.e. the
 * libraries' own per-judge-call overhead. Run with `npx tsx bench/scorer.bench.ts`.
 */
import { createScorer as mastraCreateScorer } from '@mastra/core/evals'
import { z } from 'zod'
import { createScorer } from '../src/scoring/create-scorer.ts'
import { scriptedJudge } from '../src/scoring/testing/scripted-judge.ts'

/** One benchmark result: our throughput against the baseline's, in scorer runs per second. */
export interface ScorerBenchRow {
  case: string
  subject: string
  baseline: string
  subjectRunsPerSec: number
  baselineRunsPerSec: number
  /** subject / baseline: above 1 means faster than the baseline. */
  ratio: number
}

type Create = (config: any) => any

/** The four-step function-only scorer, defined once for both libraries. */
function fourStepScorer(create: Create) {
  return create({ id: 'four-step', description: 'function-only four-step scorer' })
    .preprocess(({ run }: any) => {
      const text = String(run.output.text).toLowerCase()
      return { text, words: text.split(' ').length }
    })
    .analyze(({ results }: any) => {
      const found = ['wheat', 'flour', 'barley', 'rye', 'bread'].filter((w) =>
        results.preprocessStepResult.text.includes(w),
      )
      return { isGlutenFree: found.length === 0, found }
    })
    .generateScore(({ results }: any) => (results.analyzeStepResult.isGlutenFree ? 1 : 0))
    .generateReason(({ results, score }: any) =>
      score === 1 ? 'No gluten found.' : `Contains ${results.analyzeStepResult.found.join(', ')}`,
    )
}

/** A two-prompt-step scorer (analyze with a schema, prompt reason) for the judge-path row. */
function judgeScorer(create: Create) {
  const judge = scriptedJudge([
    (call) =>
      call.prompt.some((m) => m.role === 'user' && JSON.stringify(m.content).includes('Explain'))
        ? 'Contains flour.'
        : '{"isGlutenFree":false,"glutenSources":["flour"]}',
  ])
  return create({
    id: 'judge-path',
    description: 'd',
    judge: { model: judge.model, instructions: 'You are a chef.' },
  })
    .analyze({
      description: 'a',
      outputSchema: z.object({ isGlutenFree: z.boolean(), glutenSources: z.array(z.string()) }),
      createPrompt: ({ run }: any) => `Recipe: ${run.output.text}`,
    })
    .generateScore(({ results }: any) => (results.analyzeStepResult.isGlutenFree ? 1 : 0))
    .generateReason({ description: 'r', createPrompt: ({ score }: any) => `Explain ${score}` })
}

const INPUTS = [
  { input: 'recipe', output: { text: 'Mix rice, beans, and vegetables' } },
  { input: 'recipe', output: { text: 'Mix flour and water to make dough' } },
]

async function measure(scorer: { run(input: unknown): Promise<unknown> }, ms: number): Promise<number> {
  let runs = 0
  const start = performance.now()
  let elapsed = 0
  while (elapsed < ms) {
    for (let i = 0; i < 50; i++) await scorer.run(INPUTS[runs++ % INPUTS.length])
    elapsed = performance.now() - start
  }
  return (runs / elapsed) * 1000
}

async function compare(
  name: string,
  define: (create: Create) => { run(input: unknown): Promise<unknown> },
  roundMs: number,
  rounds: number,
): Promise<ScorerBenchRow> {
  const ours = define(createScorer as Create)
  const mastra = define(mastraCreateScorer as Create)
  // warm-up: JIT and Mastra's lazily built workflow machinery
  await measure(ours, 100)
  await measure(mastra, 100)
  let best = { ours: 0, mastra: 0 }
  for (let round = 0; round < rounds; round++) {
    best = {
      ours: Math.max(best.ours, await measure(ours, roundMs)),
      mastra: Math.max(best.mastra, await measure(mastra, roundMs)),
    }
  }
  return {
    case: name,
    subject: 'tracescore createScorer',
    baseline: '@mastra/core 1.71 createScorer',
    subjectRunsPerSec: Math.round(best.ours),
    baselineRunsPerSec: Math.round(best.mastra),
    ratio: Math.round((best.ours / best.mastra) * 10) / 10,
  }
}

/** Measures both libraries in alternating rounds and returns one row per case. */
export async function run(options: { roundMs?: number; rounds?: number } = {}): Promise<ScorerBenchRow[]> {
  const roundMs = options.roundMs ?? 500
  const rounds = options.rounds ?? 3
  return [
    await compare('function-only four-step scorer', fourStepScorer, roundMs, rounds),
    await compare('analyze + reason prompt steps, instant scripted judge', judgeScorer, roundMs, rounds),
  ]
}

/** Prints the rows as a table. */
export function printRows(rows: ScorerBenchRow[]): void {
  console.log(['case', 'subject', 'runs/s', 'baseline', 'runs/s', 'ratio'].join(' | '))
  for (const r of rows) {
    console.log(
      [r.case, r.subject, r.subjectRunsPerSec, r.baseline, r.baselineRunsPerSec, `${r.ratio}x`].join(' | '),
    )
  }
}

if (import.meta.url === `file://${process.argv[1]}`) printRows(await run())
