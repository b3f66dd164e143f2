/** The types the stages meet through: spans, agent runs in Mastra's message shapes, score records. */
export {
  type AgentRun,
  CONVENTIONS,
  type Convention,
  type RecordedParts,
  RUN_PARTS,
  type RunPart,
  unrecordedParts,
} from './agent-run.ts'
export { groupByTrace } from './group-by-trace.ts'
export type { LogRecord } from './log-record.ts'
export type {
  MastraDBMessage,
  MastraMessageContentV2,
  MastraMessagePart,
  ScorerRunInputForAgent,
  ScorerRunOutputForAgent,
  ToolInvocation,
  ToolInvocationPart,
} from './message.ts'
export type { JudgeUsage, ScoreRecord } from './score.ts'
export {
  type Attributes,
  type AttributeValue,
  type InstrumentationScope,
  type Span,
  type SpanEvent,
  SpanKind,
  StatusCode,
} from './span.ts'
