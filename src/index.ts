/**
 * tracescore's public API: the scorer API (Mastra-compatible `createScorer`), the OTLP decoder,
 * the agent-run transform, configuration, and the pipeline for embedding.
 */
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
export {
  decodeOtlpJsonLines,
  decodeOtlpTraces,
  detectOtlpEncoding,
  OtlpDecodeError,
  type OtlpEncoding,
} from './ingest/decode/index.ts'
export * from './model/index.ts'
export { createPipeline, type Pipeline, type PipelineDeps } from './pipeline.ts'
export { groupByTrace, scoreTrace, type TraceScores } from './score-trace.ts'
export * from './scoring/index.ts'
export {
  combineSinks,
  createJsonlSink,
  createKafkaScoreSink,
  createLangfuseScoreSink,
  createOtlpSink,
  createPhoenixAnnotationSink,
  createSinks,
  type Sink,
  type SinkConfig,
  scoreSpanId,
} from './sink/index.ts'
export { detectConvention, extractAgentRuns, findAgentSpans, isAgentRunSpan } from './transform/index.ts'
