import type { RunPart } from '../model/index.ts'

/** What a judge needs unless its scorer says otherwise: the user's request and the answer. */
const JUDGE_DEFAULT: readonly RunPart[] = ['input', 'finalText']

/**
 * What the prebuilt scorers of `@mastra/evals` read, by id (their sources, version 1.10): they are
 * Mastra's, so they cannot say it themselves. Tool-call and trajectory accuracy judged by code read
 * the tools' names, which every trace records, but refuse a run without input messages.
 */
const MASTRA_PREBUILT = new Map<string, readonly RunPart[]>([
  ['answer-relevancy-scorer', JUDGE_DEFAULT],
  ['answer-similarity-scorer', ['finalText']],
  ['bias-scorer', JUDGE_DEFAULT],
  ['code-tool-call-accuracy-scorer', ['input']],
  ['code-trajectory-accuracy-scorer', ['input']],
  ['code-trajectory-scorer', ['input']],
  ['completeness-scorer', JUDGE_DEFAULT],
  ['content-similarity-scorer', JUDGE_DEFAULT],
  ['context-precision-scorer', JUDGE_DEFAULT],
  ['context-recall-scorer', JUDGE_DEFAULT],
  ['context-relevance-scorer', JUDGE_DEFAULT],
  ['faithfulness-scorer', JUDGE_DEFAULT],
  ['hallucination-scorer', JUDGE_DEFAULT],
  ['keyword-coverage-scorer', JUDGE_DEFAULT],
  ['llm-tool-call-accuracy-scorer', ['input']],
  ['llm-trajectory-accuracy-scorer', ['input']],
  ['multi-turn-judge-scorer', JUDGE_DEFAULT],
  ['noise-sensitivity-scorer', JUDGE_DEFAULT],
  ['prompt-alignment-scorer', JUDGE_DEFAULT],
  ['rubric-scorer', JUDGE_DEFAULT],
  ['summarization-scorer', JUDGE_DEFAULT],
  ['textual-difference-scorer', JUDGE_DEFAULT],
  ['tone-scorer', JUDGE_DEFAULT],
  ['toxicity-scorer', ['finalText']],
])

/** What a scorer object may tell about itself (ours: `requires` and `getSteps`; Mastra's: `getSteps`). */
interface ScorerLike {
  id?: unknown
  requires?: unknown
  getSteps?: () => { type?: unknown }[]
}

/**
 * The parts of a run a scorer needs recorded, first found of: the registry entry's `requires`, the
 * scorer's own (`createScorer({ requires })`), the table of Mastra's prebuilt scorers, and for a
 * scorer with a prompt-object (judge) step the input and the final text. A code scorer that says
 * nothing needs nothing: it runs and can read `run.recorded` itself.
 */
export function requiredParts(entry: { scorer: unknown; requires?: readonly RunPart[] }): readonly RunPart[] {
  if (entry.requires) return entry.requires
  const scorer = entry.scorer as ScorerLike
  const own = read(() => scorer.requires)
  if (Array.isArray(own)) return own as RunPart[]
  const id = read(() => scorer.id)
  const prebuilt = typeof id === 'string' ? MASTRA_PREBUILT.get(id) : undefined
  if (prebuilt) return prebuilt
  return callsJudge(scorer) ? JUDGE_DEFAULT : []
}

/** Whether a scorer has a prompt-object (judge) step: each of its runs is a paid model call. */
export function callsJudge(scorer: unknown): boolean {
  const steps = read(() => (scorer as ScorerLike).getSteps?.())
  return Array.isArray(steps) && steps.some((step) => step?.type === 'prompt')
}

const PART_NAMES: Record<RunPart, string> = {
  input: 'input messages',
  system: 'system instructions',
  finalText: 'final text',
  toolArguments: 'tool arguments',
  toolResults: 'tool results',
}

/** The reason of a `not-scorable` decision for parts not recorded. */
export function describeUnrecorded(parts: readonly RunPart[]): string {
  return `the trace did not record the run's ${parts.map((part) => PART_NAMES[part]).join(', ')} (content capture off?)`
}

function read<T>(get: () => T): T | undefined {
  try {
    return get()
  } catch {
    return undefined
  }
}
