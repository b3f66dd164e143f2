import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { RunPart } from '../model/agent-run.ts'
import type { JudgeConfig } from './judge-config.ts'
import type { NotScorable } from './not-scorable.ts'
import type { OutputSchema } from './output-schema.ts'
import type { AnyPromptObject } from './prompt-step.ts'
import { runScorer, type ScorerDefinition, type ScorerRunOptions, type ScorerStep } from './run-scorer.ts'
import { ScorerConfigError } from './scorer-config-error.ts'
import type { ScorerRunResult } from './scorer-result.ts'
import type { PrepareRun, ScorerRun, ScorerTypeShortcuts } from './scorer-run.ts'
import type { ScorerStepName } from './scorer-step-name.ts'
import type {
  FunctionStep,
  GenerateReasonContext,
  GenerateReasonPromptObject,
  GenerateScorePromptObject,
  PromptObject,
  StepContext,
  WithStepResult,
} from './step-types.ts'

/** Options of `createScorer` (Mastra's `ScorerConfig`). */
export interface ScorerConfig<TID extends string = string, TInput = any, TOutput = any> {
  id: TID
  /** Defaults to `id`. */
  name?: string
  description: string
  /** The default judge of prompt-object steps. */
  judge?: JudgeConfig
  /** `'agent'` types the run as an agent run; typing only, never checked at run time. */
  type?:
    | keyof ScorerTypeShortcuts
    | { input: StandardSchemaV1<unknown, TInput>; output: StandardSchemaV1<unknown, TOutput> }
  /** Runs first; its result replaces the run for every step and in the result. */
  prepareRun?: PrepareRun<TInput, TOutput>
  /**
   * tracescore: the parts of an agent run this scorer needs recorded; a run whose trace lacks one
   * is `not-scorable` and the scorer does not run. Default: none for function steps only, the
   * input and the final text when a step is a prompt object (a judge).
   */
  requires?: readonly RunPart[]
}

type Results = Record<string, any>

/** A preprocess or analyze step: a function, or a prompt object whose answer `outputSchema` parses into `T`. */
type ResultStep<TResults extends Results, TInput, TOutput, T> =
  | FunctionStep<StepContext<TResults, TInput, TOutput>, T>
  | PromptObject<OutputSchema<T>, TResults, TInput, TOutput>

/**
 * A scorer: an immutable pipeline of preprocess → analyze → generateScore → generateReason steps
 * (in chaining order). Each step method returns a new scorer; `run()` scores one input/output pair.
 */
export class Scorer<TID extends string = string, TInput = any, TOutput = any, TResults extends Results = {}> {
  readonly #config: ScorerConfig<TID, TInput, TOutput>
  readonly #steps: readonly ScorerStep[]
  readonly #definition: ScorerDefinition

  constructor(config: ScorerConfig<TID, TInput, TOutput>, steps: readonly ScorerStep[] = []) {
    if (!config.id) {
      throw new ScorerConfigError(
        'MASTR_SCORER_FAILED_TO_CREATE_MISSING_ID',
        'Scorers must have an ID field. Please provide an ID in the scorer config.',
      )
    }
    this.#config = config
    this.#steps = steps
    this.#definition = {
      id: config.id,
      ...(config.judge ? { judge: config.judge } : {}),
      ...(config.prepareRun ? { prepareRun: config.prepareRun as PrepareRun } : {}),
      steps,
    }
  }

  get id(): TID {
    return this.#config.id
  }
  get name(): string {
    return this.#config.name ?? this.#config.id
  }
  get description(): string {
    return this.#config.description
  }
  get type(): ScorerConfig<TID, TInput, TOutput>['type'] {
    return this.#config.type
  }
  get judge(): JudgeConfig | undefined {
    return this.#config.judge
  }
  /** The parts of an agent run this scorer needs recorded, when it says (`requires`). */
  get requires(): readonly RunPart[] | undefined {
    return this.#config.requires
  }
  /** The scorer's configuration, as given to `createScorer` (name defaulted). */
  get config(): ScorerConfig<TID, TInput, TOutput> {
    return this.#config
  }

  /** The chained steps: name, `'function'` or `'prompt'`, and the prompt object's description. */
  getSteps(): { name: ScorerStepName; type: 'function' | 'prompt'; description?: string }[] {
    return this.#steps.map((step) =>
      step.kind === 'prompt'
        ? { name: step.name, type: 'prompt', description: step.prompt.description }
        : { name: step.name, type: 'function' },
    )
  }

  /** Adds a preprocess step; its result is `results.preprocessStepResult` for later steps. */
  preprocess<T = any>(
    step: ResultStep<TResults, TInput, TOutput, T>,
  ): Scorer<TID, TInput, TOutput, WithStepResult<TResults, 'preprocess', T>> {
    return this.#with('preprocess', step)
  }

  /** Adds an analyze step; its result is `results.analyzeStepResult` for later steps. */
  analyze<T = any>(
    step: ResultStep<TResults, TInput, TOutput, T>,
  ): Scorer<TID, TInput, TOutput, WithStepResult<TResults, 'analyze', T>> {
    return this.#with('analyze', step)
  }

  /** Adds the (required) generateScore step: a function returning a number, or a prompt object. */
  generateScore<TSchema extends OutputSchema<any> = OutputSchema<any>>(
    step:
      | FunctionStep<StepContext<TResults, TInput, TOutput>, number | NotScorable>
      | GenerateScorePromptObject<TResults, TInput, TOutput, TSchema>,
  ): Scorer<TID, TInput, TOutput, WithStepResult<TResults, 'generateScore', number>> {
    return this.#with('generateScore', step)
  }

  /** Adds a generateReason step; it receives `score`, and its result is the run's `reason`. */
  generateReason<T = string>(
    step:
      | FunctionStep<GenerateReasonContext<TResults, TInput, TOutput>, T>
      | GenerateReasonPromptObject<TResults, TInput, TOutput>,
  ): Scorer<TID, TInput, TOutput, WithStepResult<TResults, 'generateReason', T>> {
    return this.#with('generateReason', step)
  }

  /** Scores one run. Rejects with `ScorerRunError` when a step fails. */
  run(
    input: ScorerRun<TInput, TOutput>,
    options?: ScorerRunOptions,
  ): Promise<ScorerRunResult<TResults, TInput, TOutput>> {
    return runScorer(this.#definition, input, options) as Promise<ScorerRunResult<TResults, TInput, TOutput>>
  }

  #with(name: ScorerStepName, step: unknown): any {
    return new Scorer(this.#config, [...this.#steps, toStep(name, step)])
  }
}

function toStep(name: ScorerStepName, step: unknown): ScorerStep {
  if (typeof step === 'function') return { name, kind: 'function', run: step as (context: any) => unknown }
  if (typeof step === 'object' && step !== null && 'description' in step && 'createPrompt' in step) {
    const prompt = step as AnyPromptObject
    if ((name === 'preprocess' || name === 'analyze') && !prompt.outputSchema) {
      throw new ScorerConfigError(
        'TRACESCORE_SCORER_STEP_MISSING_OUTPUT_SCHEMA',
        `${name} prompt object needs an outputSchema`,
      )
    }
    return { name, kind: 'prompt', prompt }
  }
  throw new ScorerConfigError(
    'TRACESCORE_SCORER_INVALID_STEP',
    `${name} step must be a function or a prompt object with description and createPrompt`,
  )
}

/** Creates an agent scorer: `run.input` is `ScorerRunInputForAgent`, `run.output` `ScorerRunOutputForAgent`. */
export function createScorer<TID extends string>(
  config: Omit<
    ScorerConfig<TID, ScorerTypeShortcuts['agent']['input'], ScorerTypeShortcuts['agent']['output']>,
    'type'
  > & {
    type: 'agent'
  },
): Scorer<TID, ScorerTypeShortcuts['agent']['input'], ScorerTypeShortcuts['agent']['output'], {}>
/** Creates a scorer whose input/output types come from the schemas in `type`. */
export function createScorer<TID extends string, TInput, TOutput>(
  config: Omit<ScorerConfig<TID, TInput, TOutput>, 'type'> & {
    type: { input: StandardSchemaV1<unknown, TInput>; output: StandardSchemaV1<unknown, TOutput> }
  },
): Scorer<TID, TInput, TOutput, {}>
/** Creates a scorer; `createScorer<TInput, TOutput>(...)` types custom input/output shapes. */
export function createScorer<TInput = any, TOutput = any, TID extends string = string>(
  config: ScorerConfig<TID, TInput, TOutput>,
): Scorer<TID, TInput, TOutput, {}>
export function createScorer(config: ScorerConfig<string>): Scorer<string> {
  return new Scorer({ ...config, name: config.name ?? config.id })
}
