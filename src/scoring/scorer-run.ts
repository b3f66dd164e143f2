import type { RecordedParts } from '../model/agent-run.ts'
import type { ScorerRunInputForAgent, ScorerRunOutputForAgent } from '../model/message.ts'

/**
 * What `scorer.run()` takes (Mastra's `ScorerRun`): the run's input and output plus optional
 * context. `prepareRun` receives and returns this shape; every key reaches the result.
 */
export interface ScorerRun<TInput = any, TOutput = any> {
  /** Identifies this scoring; a random UUID when absent. */
  runId?: string
  input?: TInput
  output: TOutput
  groundTruth?: any
  /**
   * tracescore: which parts of the agent run its trace recorded (content capture off records the
   * structure without the text). A part that is `false` is absent from `input`/`output` because
   * nothing recorded it, not because it was empty.
   */
  recorded?: RecordedParts
  expectedTrajectory?: unknown
  requestContext?: Record<string, any>
  requestContextKeys?: string[]
  scoreSource?: 'live' | 'trace' | 'experiment'
  targetScope?: 'span' | 'trajectory'
  targetEntityType?: string
  targetTraceId?: string
  targetSpanId?: string
  targetCorrelationContext?: Record<string, unknown>
  targetMetadata?: Record<string, unknown>
  /** Mastra-internal flags; removed before anything else sees the run. */
  _internal?: { emitObservabilityScore?: boolean }
}

/** The run as steps see it: `runId` is always set. */
export type StepRun<TInput = any, TOutput = any> = ScorerRun<TInput, TOutput> & {
  runId: string
  input: TInput
}

/** Input/output types selected by `createScorer({ type })`. */
export interface ScorerTypeShortcuts {
  agent: { input: ScorerRunInputForAgent; output: ScorerRunOutputForAgent }
}

/** `prepareRun`: reshapes the run before any step runs; its result replaces the run everywhere. */
export type PrepareRun<TInput = any, TOutput = any> = (
  run: ScorerRun<TInput, TOutput>,
) => ScorerRun<TInput, TOutput> | Promise<ScorerRun<TInput, TOutput>>
