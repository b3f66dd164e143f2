import { z } from 'zod'
import { fenceRunContent } from './fence-run.ts'
import { fenceMarkers, fencesTraceContent, newFenceNonce, withFenceNonce } from './fence-untrusted.ts'
import type { Judge } from './judge.ts'
import { type JudgeConfig, mergeJudgeConfig, type StepJudgeConfig } from './judge-config.ts'
import { resolveJudgeModel } from './judge-model.ts'
import { JudgeFormatError, type JudgeRequest, JudgeRequestError, requestJudge } from './judge-request.ts'
import { type OutputSchema, type ResolvedOutputSchema, resolveOutputSchema } from './output-schema.ts'
import { ScorerConfigError } from './scorer-config-error.ts'
import type { JudgeExecution, JudgeExecutionFailure } from './scorer-result.ts'
import type { ScorerStepName } from './scorer-step-name.ts'
import { currentStepAnswers, type KeptAnswer, promptHash } from './step-answers.ts'

/** A prompt object of any step, as stored by the builder. */
export interface AnyPromptObject {
  description: string
  createPrompt: (context: any) => string | Promise<string>
  outputSchema?: OutputSchema<any>
  calculateScore?: (context: any) => number | Promise<number>
  judge?: StepJudgeConfig
}

/** What a prompt step produced: the step result, the rendered prompt and the judge record. */
export interface PromptStepOutcome {
  result: unknown
  prompt: string
  execution: JudgeExecution
}

/** A prompt step that failed; carries its judge record when the judge was called. */
export class PromptStepError extends Error {
  readonly original: unknown
  readonly execution?: JudgeExecution
  constructor(original: unknown, execution?: JudgeExecution) {
    super(original instanceof Error ? original.message : String(original), { cause: original })
    this.original = original
    if (execution) this.execution = execution
    this.name = original instanceof Error ? original.name : 'PromptStepError'
  }
}

/** Mastra's fixed schema for prompt-mode generateScore without calculateScore. */
const SCORE_SCHEMA = z.object({ score: z.number() })

function schemaFor(name: ScorerStepName, step: AnyPromptObject): ResolvedOutputSchema | undefined {
  if (name === 'generateReason') return undefined
  if (name === 'generateScore') {
    return resolveOutputSchema(step.calculateScore && step.outputSchema ? step.outputSchema : SCORE_SCHEMA)
  }
  return resolveOutputSchema(step.outputSchema!)
}

/** Runs a prompt-object step: renders the prompt, asks the judge, turns the answer into the step result. */
export async function executePromptStep(options: {
  scorerId: string
  name: ScorerStepName
  step: AnyPromptObject
  context: Record<string, unknown>
  scorerJudge: Partial<JudgeConfig> | undefined
  runtime: Judge
  abortSignal?: AbortSignal
}): Promise<PromptStepOutcome> {
  const { name, step, context, runtime } = options
  const startedAt = performance.now()
  // One nonce per judge request: trace content fenced with it (by the pipeline or by
  // fenceUntrusted) cannot carry the closing marker the judge is told about.
  const nonce = newFenceNonce()
  const promptContext =
    fencesTraceContent() && isItemWithRun(context)
      ? { ...context, run: fenceRunContent(context.run, nonce) }
      : context
  const prompt = await withFenceNonce(nonce, () => step.createPrompt(promptContext))
  const judge = mergeJudgeConfig(options.scorerJudge, step.judge)
  if (!judge.model || !judge.instructions) {
    throw new ScorerConfigError(
      'MASTR_SCORER_FAILED_TO_RUN_MISSING_MODEL_OR_INSTRUCTIONS',
      `Step "${name}" requires a model and instructions`,
      { scorerId: options.scorerId, step: name },
    )
  }
  const model = await resolveJudgeModel(judge.model, runtime.resolveModel)
  const base = { prompt, judgeModelId: model.modelId, judgeProvider: model.provider }
  try {
    const response = await askOrRecall(name, nonce, {
      model,
      judge: { ...judge, instructions: judge.instructions },
      prompt,
      ...(prompt.includes(fenceMarkers(nonce).close) ? { fenceNonce: nonce } : {}),
      schema: schemaFor(name, step),
      runtime,
      ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
    })
    const execution: JudgeExecution = {
      status: 'success',
      ...base,
      output: response.output,
      usage: response.usage,
      attemptCount: response.attemptCount,
      modelCallCount: response.modelCallCount,
      durationMs: Math.round(performance.now() - startedAt),
    }
    if (name !== 'generateScore') return { result: response.output, prompt, execution }
    if (!step.calculateScore) {
      const score = (response.output as { score: number }).score
      return { result: score, prompt, execution: { ...execution, output: score } }
    }
    try {
      const score = await step.calculateScore({
        ...context,
        analyzeStepResult: response.output,
        judgeOutput: response.output,
      })
      return { result: score, prompt, execution }
    } catch (calculateError) {
      // The judge answered: keep its record (and tokens) although calculateScore failed.
      throw new PromptStepError(calculateError, execution)
    }
  } catch (error) {
    if (!(error instanceof JudgeRequestError)) throw error
    const { telemetry } = error
    const cause = error.cause
    const code = error.code
    const execution: JudgeExecutionFailure | undefined =
      telemetry.attemptCount === 0
        ? undefined
        : {
            status: 'failed',
            ...base,
            ...(Object.keys(telemetry.usage).length > 0 ? { usage: telemetry.usage } : {}),
            attemptCount: telemetry.attemptCount,
            modelCallCount: telemetry.modelCallCount,
            durationMs: Math.round(performance.now() - startedAt),
            ...finishReasonOf(cause, telemetry.finishReason),
            ...(telemetry.rawOutput !== undefined ? { rawOutput: telemetry.rawOutput } : {}),
            error: { name: error.name, message: error.message, ...(code ? { code } : {}) },
          }
    throw new PromptStepError(cause, execution)
  }
}

/**
 * The judge's answer to the request: the one kept for the same step and prompt hash when the
 * scoring has kept answers (a run resumed after a crash), else asked for, and kept before the
 * scorer moves on, so that a crash from here on does not ask for it again.
 */
async function askOrRecall(name: ScorerStepName, nonce: string, request: JudgeRequest): Promise<KeptAnswer> {
  const answers = currentStepAnswers()
  if (answers === undefined) return requestJudge(request)
  const hash = promptHash({
    step: name,
    provider: request.model.provider,
    modelId: request.model.modelId,
    instructions: request.judge.instructions,
    prompt: request.prompt,
    nonce,
    schema: request.schema?.jsonSchema,
  })
  const kept = answers.recall(name, hash)
  if (kept !== undefined) return kept
  // Noted as each call is sent, not while it waits for a judge slot: a call that waited is not under way.
  const { output, usage, attemptCount, modelCallCount, finishReason } = await requestJudge({
    ...request,
    onSend: () => answers.asking(name, hash),
  })
  const answer: KeptAnswer = {
    output,
    usage,
    attemptCount,
    modelCallCount,
    ...(finishReason !== undefined ? { finishReason } : {}),
  }
  await answers.keep(name, hash, answer)
  return answer
}

function isItemWithRun(
  context: Record<string, unknown>,
): context is { run: { input?: unknown; output?: unknown } } {
  return typeof context.run === 'object' && context.run !== null
}

/** A provider failure ends with `'error'` (as Mastra reports it); a format failure keeps the model's reason. */
function finishReasonOf(cause: unknown, last: string | undefined): { finishReason?: string } {
  if (!(cause instanceof JudgeFormatError)) return { finishReason: 'error' }
  return last ? { finishReason: last } : {}
}
