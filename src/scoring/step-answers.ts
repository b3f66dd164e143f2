import { AsyncLocalStorage } from 'node:async_hooks'
import { createHash } from 'node:crypto'
import type { JudgeTokenUsage } from './scorer-result.ts'
import type { ScorerStepName } from './scorer-step-name.ts'

/**
 * Judge answers kept per step, so that a scoring cut short (kill -9, a crash) resumes from the
 * answers it had already paid for instead of asking the judge again. The score ledger provides
 * the store (`src/ledger/kept-answers.ts`); the prompt steps use it through the scope set here,
 * around one (run, scorer) scoring, the way the judge itself is scoped (`withJudge`).
 */

/** What is kept of a judge step's answer: enough to give the step the same result again. */
export interface KeptAnswer {
  /** The parsed and validated answer (the object, or the text when no schema was asked for). */
  output: unknown
  usage: JudgeTokenUsage
  attemptCount: number
  modelCallCount: number
  finishReason?: string
}

/** The kept answers of one (run, scorer, scorer version). */
export interface StepAnswers {
  /** The answer kept for this step and prompt hash, if any. Undefined: ask the judge. */
  recall(step: ScorerStepName, promptHash: string): KeptAnswer | undefined
  /** Called as each request of the step is sent (notes it as under way, so a repeat of it can be counted). */
  asking(step: ScorerStepName, promptHash: string): void
  /** Keeps the answer durably; resolves when it is kept (or could not be: it is then only lost). */
  keep(step: ScorerStepName, promptHash: string, answer: KeptAnswer): Promise<void>
}

const scope = new AsyncLocalStorage<StepAnswers | undefined>()

/** Runs `work` (one scorer on one run) with `answers` as the kept answers of its judge steps. */
export function withStepAnswers<T>(answers: StepAnswers | undefined, work: () => T): T {
  return scope.run(answers, work)
}

/** The kept answers of the scoring in progress; undefined outside one (or with the ledger off). */
export function currentStepAnswers(): StepAnswers | undefined {
  return scope.getStore()
}

/**
 * The hash a step's answer is kept under: of everything that makes the request, the step, the
 * model, the instructions, the prompt and the asked schema. The prompt's fence nonce (random per
 * request, `fence-untrusted.ts`) is left out, so the same run rendered again hashes the same; any
 * other change (a new redaction, an edited prompt, another model) gives another hash and the
 * judge is asked again.
 */
export function promptHash(request: {
  step: ScorerStepName
  provider: string
  modelId: string
  instructions: string
  prompt: string
  nonce: string
  schema: unknown
}): string {
  const prompt = request.prompt.replaceAll(request.nonce, '')
  return createHash('sha256')
    .update(
      JSON.stringify([
        request.step,
        request.provider,
        request.modelId,
        request.instructions,
        prompt,
        request.schema ?? null,
      ]),
    )
    .digest('base64url')
}
