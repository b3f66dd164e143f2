/** Judge usage recorded for one score. */
export interface JudgeUsage {
  model?: string
  inputTokens?: number
  outputTokens?: number
  totalTokens?: number
  calls: number
}

/** The outcome of one (agent run, scorer) pair, as every sink receives it. */
export interface ScoreRecord {
  traceId: string
  /** The agent-run span the score judges. */
  spanId: string
  runId: string
  agentName?: string
  agentId?: string
  scorerId: string
  scorerName: string
  /** `code` when no prompt step ran, `llm` when a judge was asked. */
  scorerKind: 'code' | 'llm'
  score?: number
  label?: string
  reason?: string
  /** Set when scoring failed: the error class and its message. */
  error?: { type: string; message: string }
  judge?: JudgeUsage
  samplingRate?: number
  /** The run was rebuilt from a trace finalized by age or by the buffer cap (spans may be missing). */
  incomplete?: boolean
  /** Epoch milliseconds when the score was produced. */
  timestampMs: number
}
