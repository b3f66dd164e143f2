import type { Producer } from 'kafkajs'
import type { TracescoreConfig } from '../config/index.ts'
import type { Logger } from '../ops/logger.ts'
import { coalesceDeliveries } from './coalescing-sink.ts'
import { createSink, type SinkConfig } from './create-sinks.ts'
import type { Sink } from './sink.ts'

/**
 * The sinks the configuration asks for (plus `extra`), each making one attempt per delivery (the
 * pipeline's delivery queue retries above them) and batching the scores of concurrently scored
 * traces into one export. The Kafka score sink writes through the process's producer. With the
 * OTLP sink, scores also go as `gen_ai.evaluation.result` log records (`sinks.otlp.logs`, on by
 * default; off by itself, said on `logger`, when the backend takes no logs).
 */
export function sinksFromConfig(
  sinks: TracescoreConfig['sinks'],
  producer: Producer,
  extra: readonly Sink[] = [],
  logger?: Logger,
): Sink[] {
  const oneAttempt = { retry: { retries: 0 } }
  const configured = sinkConfigsOf(sinks, producer, logger).map((c) => createSink({ ...c, ...oneAttempt }))
  return [...configured, ...extra].map((sink) => coalesceDeliveries(sink))
}

function sinkConfigsOf(
  sinks: TracescoreConfig['sinks'],
  producer: Producer,
  logger: Logger | undefined,
): SinkConfig[] {
  const { otlp, kafka, phoenix, langfuse, stdout } = sinks
  const list: SinkConfig[] = []
  if (otlp !== false) {
    const { logs, logsEndpoint, ...spans } = otlp
    list.push({ type: 'otlp', ...spans })
    if (logs !== false) {
      const onNoLogs = (status: number) =>
        logger?.warn(
          { status },
          'the OTLP backend takes no logs: evaluation log records are off (sinks.otlp.logs); score spans go on',
        )
      list.push({ type: 'otlp-logs', ...spans, ...(logsEndpoint ? { logsEndpoint } : {}), onNoLogs })
    }
  }
  if (kafka) list.push({ type: 'kafka', producer, topic: kafka.topic })
  if (phoenix) list.push({ type: 'phoenix', ...phoenix })
  if (langfuse) list.push({ type: 'langfuse', ...langfuse })
  if (stdout) list.push({ type: 'jsonl' })
  return list
}
