import type { ScorerRunInputForAgent, ScorerRunOutputForAgent } from './message.ts'

/** The instrumentation convention an agent run was recognised from. */
export type Convention = (typeof CONVENTIONS)[number]

/** Every convention a run can be recognised from. */
export const CONVENTIONS = [
  'mastra',
  'genai',
  'ai-sdk',
  'openinference',
  'traceloop',
  'logfire',
  'genkit',
  // Runs found by structure: model calls in a provider's wire format or a message list, and spans
  // of no known vocabulary around them.
  'generic',
] as const

/**
 * A part of an agent run that a trace may or may not record: content capture off (the default of
 * the OpenTelemetry GenAI instrumentations) keeps the structure of a run but none of its text.
 */
export type RunPart = (typeof RUN_PARTS)[number]

/** Every part of a run that a trace may not record, in the order reasons name them. */
export const RUN_PARTS = ['input', 'system', 'finalText', 'toolArguments', 'toolResults'] as const

/**
 * Which parts of a run the trace recorded. `true` means the trace holds that part's content, which
 * may be empty when there was none (a prompt with no system message records that there was no
 * system text); `false` means the part is absent because nothing recorded it, never because it
 * was empty. `toolArguments` / `toolResults` are false when any tool call lacks them.
 */
export type RecordedParts = Record<RunPart, boolean>

/** One agent run found in a trace, reshaped into Mastra's scorer input/output. */
export interface AgentRun {
  traceId: string
  /** The agent-run span: scores are parented to it. */
  spanId: string
  /** The enclosing agent run, for nested agents. */
  parentRunSpanId?: string
  agentId?: string
  agentName?: string
  convention: Convention
  status: 'ok' | 'error'
  conversationId?: string
  startTimeUnixNano: string
  endTimeUnixNano: string
  input: ScorerRunInputForAgent
  output: ScorerRunOutputForAgent
  /** Service name, user/session ids and metadata lifted from the resource and span attributes. */
  requestContext?: Record<string, unknown>
  /**
   * Which parts the trace recorded (see {@link RecordedParts}); absent on runs not built by
   * `extractAgentRuns` (hand-made runs), which count as fully recorded.
   */
  recorded?: RecordedParts
  /**
   * Parts among the unrecorded ones (`recorded[part]` false) that the trace does hold, but only
   * mixed with others in one text that cannot be split back (a prompt's messages flattened into
   * one string): unusable, like a part not recorded, yet not absent. Absent when there are none.
   */
  inseparable?: RunPart[]
  /** What could not be rebuilt (content capture off, truncated JSON, missing parents...). */
  notes?: string[]
  /** True when the trace was finalized by age or by the buffer cap rather than by settling. */
  incomplete?: boolean
}

/** The parts among `parts` (default: all) that a run's trace did not record, in {@link RUN_PARTS} order. */
export function unrecordedParts(run: AgentRun, parts: readonly RunPart[] = RUN_PARTS): RunPart[] {
  const recorded = run.recorded
  return recorded ? RUN_PARTS.filter((part) => parts.includes(part) && !recorded[part]) : []
}
