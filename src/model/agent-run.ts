import type { ScorerRunInputForAgent, ScorerRunOutputForAgent } from './message.ts'

/** The instrumentation convention an agent run was recognised from. */
export type Convention = 'mastra' | 'genai' | 'ai-sdk' | 'openinference' | 'traceloop' | 'genkit'

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
  /** What could not be rebuilt (content capture off, truncated JSON, missing parents...). */
  notes?: string[]
  /** True when the trace was finalized by age or by the buffer cap rather than by settling. */
  incomplete?: boolean
}
