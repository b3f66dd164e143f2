import { type CombinedSink, combineSinks } from './combine-sinks.ts'
import { createJsonlSink, type JsonlSinkConfig } from './jsonl-sink.ts'
import { createKafkaScoreSink, type KafkaScoreSinkConfig } from './kafka-score-sink.ts'
import { createLangfuseScoreSink, type LangfuseScoreSinkConfig } from './langfuse-score-sink.ts'
import { createOtlpLogSink, type OtlpLogSinkConfig } from './otlp-log-sink.ts'
import { createOtlpSink } from './otlp-sink.ts'
import type { OtlpSinkConfig } from './otlp-sink-config.ts'
import { createPhoenixAnnotationSink, type PhoenixAnnotationSinkConfig } from './phoenix-annotation-sink.ts'
import type { Sink } from './sink.ts'

/** One entry of the `sinks` configuration: a sink type and its typed config. */
export type SinkConfig =
  | ({ type: 'otlp' } & OtlpSinkConfig)
  | ({ type: 'otlp-logs' } & OtlpLogSinkConfig)
  | ({ type: 'kafka' } & KafkaScoreSinkConfig)
  | ({ type: 'phoenix' } & PhoenixAnnotationSinkConfig)
  | ({ type: 'langfuse' } & LangfuseScoreSinkConfig)
  | ({ type: 'jsonl' } & JsonlSinkConfig)

/** Creates one sink from its configuration entry. */
export function createSink(config: SinkConfig): Sink {
  switch (config.type) {
    case 'otlp':
      return createOtlpSink(config)
    case 'otlp-logs':
      return createOtlpLogSink(config)
    case 'kafka':
      return createKafkaScoreSink(config)
    case 'phoenix':
      return createPhoenixAnnotationSink(config)
    case 'langfuse':
      return createLangfuseScoreSink(config)
    case 'jsonl':
      return createJsonlSink(config)
    default:
      throw new Error(
        `sinks[].type: expected otlp, otlp-logs, kafka, phoenix, langfuse or jsonl, got ${(config as { type?: unknown }).type}`,
      )
  }
}

/**
 * Creates the configured sinks (entries may also be ready-made `Sink`s) and combines them into
 * one fan-out sink. An empty list gives a sink that acknowledges at once (scores go nowhere):
 * whether the OTLP sink is on by default is the configuration's decision, not this function's.
 */
export function createSinks(configs: readonly (SinkConfig | Sink)[]): CombinedSink {
  return combineSinks(configs.map((entry) => ('deliver' in entry ? entry : createSink(entry))))
}
