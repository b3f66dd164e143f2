/**
 * tracescore's public API, chosen name by name: what a configuration module or a scorer is
 * written with (`defineConfig`, `createScorer`, `filterRun`, the judge helpers), the sink
 * constructors and the pipeline for embedding, and the OTLP decoder and agent-run transform the
 * design names. Everything else is internal; `test/unit/public-api.test.ts` holds the exact list.
 */

// Configuration and the pipeline.
export {
  ConfigError,
  defineConfig,
  loadConfig,
  type RunFilter,
  resolveConfig,
  type ScorerEntry,
  type TracescoreConfig,
  type TracescoreConfigInput,
} from './config/index.ts'
// Decoding and agent runs.
export { decodeOtlpTraces, OtlpDecodeError, type OtlpEncoding } from './ingest/decode/index.ts'
export type {
  AgentRun,
  Attributes,
  AttributeValue,
  Convention,
  MastraDBMessage,
  MastraMessagePart,
  RecordedParts,
  RunPart,
  ScoreRecord,
  ScorerRunInputForAgent,
  ScorerRunOutputForAgent,
  Span,
  ToolInvocation,
} from './model/index.ts'
export { SpanKind, StatusCode } from './model/index.ts'
export { createPipeline, type Pipeline, type PipelineDeps } from './pipeline.ts'
// Writing scorers.
export {
  createJudge,
  createScorer,
  type FilterRunOptions,
  fenceUntrusted,
  filterRun,
  type GovernedJudgeModelOptions,
  type Judge,
  type JudgeConfig,
  type JudgeModelResolver,
  type JudgeOptions,
  judgeFromConfig,
  judgeModel,
  type NotScorable,
  notScorable,
  type Processor,
  type Scorer,
  type ScorerConfig,
  type ScorerRun,
  ScorerRunError,
  type ScorerRunResult,
  StreamErrorRetryProcessor,
  type StreamErrorRetryProcessorOptions,
  withJudge,
} from './scoring/index.ts'
// Sinks.
export {
  createJsonlSink,
  createKafkaScoreSink,
  createLangfuseScoreSink,
  createOtlpSink,
  createPhoenixAnnotationSink,
  type JsonlSinkConfig,
  type KafkaScoreSinkConfig,
  type LangfuseScoreSinkConfig,
  type OtlpSinkConfig,
  type PhoenixAnnotationSinkConfig,
  type Sink,
} from './sink/index.ts'
export { extractAgentRuns } from './transform/index.ts'
