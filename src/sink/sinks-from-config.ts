import type { Producer } from 'kafkajs'
import type { TracescoreConfig } from '../config/index.ts'
import { coalesceDeliveries } from './coalescing-sink.ts'
import { createSink, type SinkConfig } from './create-sinks.ts'
import type { Sink } from './sink.ts'

/**
 * The sinks the configuration asks for (plus `extra`), each making one attempt per delivery (the
 * pipeline's delivery queue retries above them) and batching the scores of concurrently scored
 * traces into one export. The Kafka score sink writes through the process's producer.
 */
export function sinksFromConfig(
  sinks: TracescoreConfig['sinks'],
  producer: Producer,
  extra: readonly Sink[] = [],
): Sink[] {
  const oneAttempt = { retry: { retries: 0 } }
  const configured = sinkConfigsOf(sinks, producer).map((c) => createSink({ ...c, ...oneAttempt }))
  return [...configured, ...extra].map((sink) => coalesceDeliveries(sink))
}

function sinkConfigsOf(sinks: TracescoreConfig['sinks'], producer: Producer): SinkConfig[] {
  const { otlp, kafka, phoenix, langfuse, stdout } = sinks
  const list: SinkConfig[] = []
  if (otlp !== false) list.push({ type: 'otlp', ...otlp })
  if (kafka) list.push({ type: 'kafka', producer, topic: kafka.topic })
  if (phoenix) list.push({ type: 'phoenix', ...phoenix })
  if (langfuse) list.push({ type: 'langfuse', ...langfuse })
  if (stdout) list.push({ type: 'jsonl' })
  return list
}
