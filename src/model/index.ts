export type { AgentRun, Convention } from './agent-run.ts'
export type {
  CoreMessage,
  CoreSystemMessage,
  DataPart,
  ErrorPart,
  FilePart,
  MastraDBMessage,
  MastraMessageContentV2,
  MastraMessagePart,
  ReasoningPart,
  ScorerRunInputForAgent,
  ScorerRunOutputForAgent,
  SourceDocumentPart,
  SourcePart,
  StepStartPart,
  TextPart,
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
  type SpanLink,
  type SpanStatus,
  StatusCode,
} from './span.ts'
