/**
 * A trace's quiet period runs only while the consumer reads (issue 22, live traffic under load).
 * With null keys a trace's spans land on several partitions. When one fetch's batches take longer
 * to handle than `settleMs` (a loaded machine, a large response), the spans of a trace written to
 * another partition just after that fetch are read only by the next one; on the clock alone the
 * trace had been quiet long enough and was scored without them. The 1 M-span live run under
 * load lost 277 spans this way. Real broker; the slow handling is a port wrapper that holds the
 * batch carrying the agent span, as kafkajs does with a fetch whose batches are not all handled.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { ConsumerHandlers, ConsumerPort } from '../../src/ingest/consumer-port.ts'
import { createDeadLetterProducer } from '../../src/ingest/dead-letter-producer.ts'
import { createKafkajsConsumer } from '../../src/ingest/kafkajs-consumer.ts'
import { createSpanSource } from '../../src/ingest/span-source.ts'
import {
  encodeOtlpProto,
  generateAgentTraffic,
  isGeneratedAgentSpan,
} from '../../src/ingest/testing/agent-traffic.ts'
import { createLogger } from '../../src/ops/logger.ts'
import { createTopic, testKafka, uniqueName } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

const SETTLE_MS = 1_000
/** How long the batch with the agent span is held: three quiet periods. */
const HELD_MS = 3 * SETTLE_MS

const kafka = testKafka()
const producer = kafka.producer()
afterAll(() => producer.disconnect())
const logger = createLogger('warn')

/** A port whose first batch of `partition` is handled slowly: `onHeld` runs while it is held. */
function slowOn(inner: ConsumerPort, partition: number, onHeld: () => Promise<void>): ConsumerPort {
  let held = false
  return {
    ...inner,
    start(topic, handlers) {
      const onBatch: ConsumerHandlers['onBatch'] = async (batch) => {
        const last = await handlers.onBatch(batch)
        if (batch.partition === partition && !held) {
          held = true
          await Promise.all([onHeld(), new Promise((r) => setTimeout(r, HELD_MS))])
        }
        return last
      }
      return inner.start(topic, { ...handlers, onBatch })
    },
  }
}

describe('the quiet period while a fetch is handled slowly', () => {
  it('waits for spans written to another partition during the slow handling', async () => {
    await producer.connect()
    const topic = uniqueName('ingest-slow-fetch')
    await createTopic(kafka, topic, 2)
    const [run] = generateAgentTraffic({ runs: 1 }).runs
    const agentSpan = run!.spans.find((s) => s.spanContext().spanId === run!.agentSpanId)!
    const others = run!.spans.filter((s) => s !== agentSpan)
    // The agent span (root, ended: the trace looks complete) on partition 0 ...
    await producer.send({
      topic,
      acks: -1,
      messages: [{ value: encodeOtlpProto([agentSpan]), partition: 0 }],
    })

    const spansScored: number[] = []
    const source = createSpanSource<number>({
      consumer: slowOn(
        createKafkajsConsumer({ kafka, groupId: uniqueName('slow-fetch'), fromBeginning: true, logger }),
        0,
        // ... its chat and tool spans on partition 1, written after that fetch was answered.
        () =>
          producer
            .send({ topic, acks: -1, messages: [{ value: encodeOtlpProto(others), partition: 1 }] })
            .then(() => {}),
      ),
      topic,
      encoding: 'otlp_proto',
      deadLetters: createDeadLetterProducer({ topic: false, send: async () => {}, logger }),
      isAgentRunSpan: isGeneratedAgentSpan,
      logger,
      settleMs: SETTLE_MS,
      process: async (trace) => trace.spans.length,
      targets: [{ name: 'collect', deliver: (n) => void spansScored.push(n) }],
    })
    await source.start()
    try {
      await until(
        () => spansScored.length > 0 && source.stats().bufferedSpans === 0,
        30_000,
        () => JSON.stringify(source.stats()),
      )
      // Handled slowly for 3 s, and read again only after: every span of the run, none late.
      expect(spansScored).toEqual([run!.spans.length])
      expect(source.stats().lateSpans).toBe(0)
    } finally {
      await source.stop()
    }
  }, 60_000)
})
