import { randomUUID } from 'node:crypto'
import { currentJudge, type Judge, withJudge } from './judge.ts'
import type { JudgeConfig } from './judge-config.ts'
import { isNotScorable, type NotScorableOutcome } from './not-scorable.ts'
import { type AnyPromptObject, executePromptStep, PromptStepError } from './prompt-step.ts'
import { ScorerConfigError } from './scorer-config-error.ts'
import type { JudgeExecution, JudgeResults, ScorerRunResult } from './scorer-result.ts'
import type { PrepareRun, ScorerRun } from './scorer-run.ts'
import { ScorerRunError, type ScorerRunResultSnapshot } from './scorer-run-error.ts'
import type { ScorerStepName } from './scorer-step-name.ts'

/** One chained step: a function, or a prompt object that asks the judge. */
export type ScorerStep =
  | { name: ScorerStepName; kind: 'function'; run: (context: any) => unknown }
  | { name: ScorerStepName; kind: 'prompt'; prompt: AnyPromptObject }

/** What the builder hands the pipeline. */
export interface ScorerDefinition {
  id: string
  judge?: Partial<JudgeConfig>
  prepareRun?: PrepareRun
  steps: readonly ScorerStep[]
}

/**
 * Per-call options of `scorer.run()` (tracescore): cancel the run, and the judge to score with
 * (the pipeline passes its own; fields given here replace those of the judge of the scoring in
 * progress, else of the default judge).
 */
export interface ScorerRunOptions {
  abortSignal?: AbortSignal
  judge?: Partial<Judge>
}

interface PipelineState {
  results: Record<string, unknown>
  prompts: Record<string, string>
  judge?: JudgeResults
  notScorable?: NotScorableOutcome
}

/** Runs the steps in chaining order with the run's judge and builds Mastra's result shape. */
export function runScorer(
  definition: ScorerDefinition,
  input: ScorerRun,
  options?: ScorerRunOptions,
): Promise<ScorerRunResult> {
  const judge = options?.judge ? { ...currentJudge(), ...options.judge } : currentJudge()
  // Function steps that call `judgeModel()` models use the same judge.
  return withJudge(judge, () => runSteps(definition, input, judge, options?.abortSignal))
}

async function runSteps(
  definition: ScorerDefinition,
  input: ScorerRun,
  judge: Judge,
  abortSignal: AbortSignal | undefined,
): Promise<ScorerRunResult> {
  const { steps } = definition
  if (!steps.some((step) => step.name === 'generateScore')) {
    throw new ScorerConfigError(
      'MASTR_SCORER_FAILED_TO_RUN_MISSING_GENERATE_SCORE',
      'Cannot execute pipeline without generateScore() step',
      { scorerId: definition.id, steps: steps.map((s) => s.name).join(', ') },
    )
  }
  const { _internal, ...scorerInput } = input
  const prepared = definition.prepareRun ? await definition.prepareRun(scorerInput) : scorerInput
  const run = { ...prepared, runId: prepared.runId || randomUUID() }
  const state: PipelineState = { results: {}, prompts: {} }
  const completed: ScorerStepName[] = []

  for (const step of steps) {
    const context =
      step.name === 'generateReason'
        ? { run, results: state.results, score: state.results.generateScoreStepResult }
        : { run, results: state.results }
    let value: unknown
    try {
      if (step.kind === 'function') {
        value = await step.run(context)
      } else {
        const outcome = await executePromptStep({
          scorerId: definition.id,
          name: step.name,
          step: step.prompt,
          context,
          scorerJudge: definition.judge,
          runtime: judge,
          ...(abortSignal ? { abortSignal } : {}),
        })
        value = outcome.result
        state.prompts = { ...state.prompts, [`${step.name}Prompt`]: outcome.prompt }
        addExecution(state, step.name, outcome.execution)
      }
    } catch (error) {
      let cause = error
      if (error instanceof PromptStepError) {
        cause = error.original
        if (error.execution) addExecution(state, step.name, error.execution)
      }
      throw new ScorerRunError({
        scorerId: definition.id,
        steps: steps.map((s) => s.name),
        failedStep: step.name,
        completedSteps: completed,
        ...(hasResultFields(state) ? { result: toResult(run, state, false) as ScorerRunResultSnapshot } : {}),
        cause,
      })
    }
    if (isNotScorable(value)) {
      state.notScorable = { step: step.name, ...(value.reason !== undefined ? { reason: value.reason } : {}) }
      break
    }
    state.results = { ...state.results, [`${step.name}StepResult`]: value }
    completed.push(step.name)
  }
  return toResult(run, state, true)
}

function addExecution(state: PipelineState, name: ScorerStepName, execution: JudgeExecution): void {
  const executions = [...(state.judge?.[name]?.executions ?? []), execution]
  state.judge = { ...state.judge, [name]: { executions } }
}

function hasResultFields(state: PipelineState): boolean {
  return (
    Object.keys(state.results).length > 0 ||
    Object.keys(state.prompts).length > 0 ||
    state.judge !== undefined
  )
}

/** Mastra's `transformToScorerResult`: every key on success, only the defined ones in a partial result. */
function toResult(
  run: ScorerRun & { runId: string },
  state: PipelineState,
  complete: boolean,
): ScorerRunResult {
  const { results, prompts } = state
  const fields: Record<string, unknown> = {
    generateScorePrompt: prompts.generateScorePrompt,
    reason: results.generateReasonStepResult,
    generateReasonPrompt: prompts.generateReasonPrompt,
    preprocessStepResult: results.preprocessStepResult,
    preprocessPrompt: prompts.preprocessPrompt,
    analyzeStepResult: results.analyzeStepResult,
    analyzePrompt: prompts.analyzePrompt,
  }
  const score = results.generateScoreStepResult
  if (complete) {
    return {
      ...run,
      ...(state.notScorable ? { notScorable: state.notScorable } : { score }),
      ...fields,
      ...(state.judge ? { judge: state.judge } : {}),
    } as ScorerRunResult
  }
  const partial: Record<string, unknown> = { ...run }
  if (score !== undefined) partial.score = score
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) partial[key] = value
  if (state.judge) partial.judge = state.judge
  return partial as unknown as ScorerRunResult
}
