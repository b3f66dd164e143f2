export { type CoalesceOptions, coalesceDeliveries } from './coalescing-sink.ts'
export { type CombinedSink, combineSinks, FanOutDeliveryError } from './combine-sinks.ts'
export { createSink, createSinks, type SinkConfig } from './create-sinks.ts'
export { createJsonlSink, type JsonlSinkConfig, type ScoreLine, toScoreLine } from './jsonl-sink.ts'
export { createKafkaScoreSink, type KafkaScoreSinkConfig } from './kafka-score-sink.ts'
export {
  type LangfuseDataType,
  type LangfuseScoreRequest,
  langfuseScoreId,
  toLangfuseScore,
} from './langfuse-score.ts'
export { createLangfuseScoreSink, type LangfuseScoreSinkConfig } from './langfuse-score-sink.ts'
export { createOtlpExporter, createOtlpSink, createOtlpSinkWithExporter } from './otlp-sink.ts'
export {
  type OtlpProtocol,
  type OtlpSinkConfig,
  type ResolvedOtlpSinkConfig,
  resolveOtlpSinkConfig,
} from './otlp-sink-config.ts'
export { type PhoenixSpanAnnotation, toPhoenixAnnotation } from './phoenix-annotation.ts'
export { createPhoenixAnnotationSink, type PhoenixAnnotationSinkConfig } from './phoenix-annotation-sink.ts'
export {
  defaultRetryPolicy,
  type RetryEvent,
  type RetryOptions,
  type RetryPolicy,
  type Sleep,
} from './retry-policy.ts'
export { isRetryableError, SinkDeliveryError } from './retrying-delivery.ts'
export {
  evaluationAttributes,
  type PassThreshold,
  scoreLabel,
  scoreSpanAttributes,
} from './score-attributes.ts'
export { type ScoreMessage, scoreMessageSchema, toScoreMessage } from './score-message.ts'
export { evaluationResultEvent, scoreSpanResource, toScoreSpan } from './score-span.ts'
export { scoreSpanId } from './score-span-id.ts'
export type { CountingSink, Sink, SinkStats } from './sink.ts'
