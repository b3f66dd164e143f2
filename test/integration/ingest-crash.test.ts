/**
 * A kafkajs consumer that dies, on the real broker: a crash kafkajs does not restart from
 * (`CRASH` with `restart: false`), and every broker connection of the consumer's client killed at
 * once (the group coordinator's among them). Either way the source goes on by itself, scores
 * every run once and commits to the end.
 */
import type { Socket } from 'node:net'
import net from 'node:net'
import { Kafka, logLevel } from 'kafkajs'
import { afterAll, describe, expect, it } from 'vitest'
import type { ConsumerPort } from '../../src/ingest/consumer-port.ts'
import { superviseConsumer } from '../../src/ingest/consumer-supervisor.ts'
import { createDeadLetterProducer } from '../../src/ingest/dead-letter-producer.ts'
import { createKafkajsConsumer } from '../../src/ingest/kafkajs-consumer.ts'
import { createSpanSource, type IngestedTrace } from '../../src/ingest/span-source.ts'
import {
  byTrace,
  encodeOtlpProto,
  generateAgentTraffic,
  isGeneratedAgentSpan,
} from '../../src/ingest/testing/agent-traffic.ts'
import { createLogger, type Logger, silentLogger } from '../../src/ops/logger.ts'
import { createTopic, testBrokers, testKafka, uniqueName, untilFullyCommitted } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

const kafka = testKafka()
const producer = kafka.producer()
afterAll(() => producer.disconnect())

/** Quiet, unless DEBUG_CRASH=1 asks for the source's and supervisor's log lines. */
const quiet: Logger = process.env.DEBUG_CRASH ? createLogger('info') : silentLogger()
const fast = { retries: 5, initialDelayMs: 50, maxDelayMs: 500, multiplier: 2, jitter: 0 }

/** A topic of `runs` agent runs (one record each) over 2 partitions. */
/**
 * A topic holding the traces of `runs` generated runs; with `held`, the last `held` traces are
 * produced only when `produceHeld()` is called (so a test can make the consumer need the broker
 * again after it broke something).
 */
async function topicWithRuns(runs: number, seed: number, held = 0) {
  await producer.connect()
  const topic = uniqueName('ingest-crash')
  await createTopic(kafka, topic, 2)
  const traffic = generateAgentTraffic({ runs, seed })
  const messages = [...byTrace(traffic.spans)].map(([traceId, spans]) => ({
    key: traceId,
    value: encodeOtlpProto(spans),
  }))
  const send = async (list: typeof messages) => {
    for (let i = 0; i < list.length; i += 20)
      await producer.send({ topic, acks: -1, messages: list.slice(i, i + 20) })
  }
  await send(messages.slice(0, messages.length - held))
  return { topic, traffic, produceHeld: () => send(messages.slice(messages.length - held)) }
}

/** A span source over `consumer`, counting how often each trace was scored and delivered. */
function sourceOver(consumer: ConsumerPort, topic: string) {
  const scored = new Map<string, number>()
  const delivered = new Map<string, number>()
  const source = createSpanSource<IngestedTrace>({
    consumer,
    topic,
    encoding: 'otlp_proto',
    deadLetters: createDeadLetterProducer({ topic: false, send: async () => {}, logger: quiet }),
    isAgentRunSpan: isGeneratedAgentSpan,
    settleMs: 200,
    tickMs: 20,
    commitIntervalMs: 100,
    logger: quiet,
    process: async (trace) => {
      scored.set(trace.traceId, (scored.get(trace.traceId) ?? 0) + 1)
      return trace
    },
    targets: [
      {
        name: 'sink',
        deliver: (trace) => {
          delivered.set(trace.traceId, (delivered.get(trace.traceId) ?? 0) + 1)
        },
      },
    ],
  })
  return { source, scored, delivered }
}

describe('a Kafka consumer that dies', () => {
  it('is replaced after a kafkajs crash without restart, and every run is scored once', async () => {
    const { topic, traffic } = await topicWithRuns(60, 71)
    const groupId = uniqueName('group')
    let batches = 0
    let consumers = 0
    const crashes: { error: unknown; recovering: boolean }[] = []
    // The first consumer's batch handler throws a TypeError on its third batch: kafkajs treats it
    // as unrecoverable and emits CRASH with restart: false.
    const consumer = superviseConsumer(
      () => {
        const inner = createKafkajsConsumer({
          kafka: testKafka(`crash-${++consumers}`),
          groupId,
          fromBeginning: true,
          consumerConfig: { maxBytesPerPartition: 4_096 },
          logger: quiet,
        })
        const generation = consumers
        return {
          ...inner,
          start: (name, handlers) =>
            inner.start(name, {
              ...handlers,
              onBatch(batch) {
                if (generation === 1 && ++batches === 3)
                  throw new TypeError('injected: a bug in a batch handler')
                return handlers.onBatch(batch)
              },
              onCrash(error, recovering) {
                crashes.push({ error, recovering })
                handlers.onCrash(error, recovering)
              },
            }),
        }
      },
      { logger: quiet, policy: fast },
    )
    const { source, scored, delivered } = sourceOver(consumer, topic)
    await source.start()
    try {
      await until(
        () => delivered.size >= traffic.runs.length,
        60_000,
        () => 'every run delivered',
      )
      await untilFullyCommitted(kafka, groupId, topic, 'committed to the end')
    } finally {
      await source.stop()
    }
    expect(crashes.some((c) => !c.recovering && String(c.error).includes('injected'))).toBe(true)
    expect(consumers).toBe(2)
    expect(consumer.replacements()).toBe(1)
    for (const run of traffic.runs) expect(scored.get(run.traceId), run.traceId).toBe(1)
    expect(source.stats().crashes).toBeGreaterThanOrEqual(1)
  })

  /**
   * A consumer whose client's broker connections all break at once: reset by the peer (kafkajs
   * sees the errors and reconnects), or gone without a word (kafkajs waits forever: the stall
   * watchdog declares it dead and the supervisor replaces it).
   */
  it.each([
    { how: 'reset by the peer', silently: false },
    { how: 'dropped silently', silently: true },
  ])('recovers when every broker connection of its client is $how mid-stream', async ({ silently }) => {
    // Half the traces are produced after the cut: the consumer must fetch (and commit) through
    // the broken connections, however fast it read the first half.
    const { topic, traffic, produceHeld } = await topicWithRuns(120, 73, 60)
    const groupId = uniqueName('group')
    const sockets = new Set<Socket>()
    // The consumer's client opens its connections through this factory, so the test can cut them.
    const client = new Kafka({
      clientId: 'crash-sockets',
      brokers: testBrokers(),
      logLevel: logLevel.NOTHING,
      socketFactory: ({ host, port, onConnect }) => {
        const socket = net.connect({ host, port }, onConnect)
        sockets.add(socket)
        socket.once('close', () => sockets.delete(socket))
        return socket
      },
    })
    const consumer = superviseConsumer(
      () =>
        createKafkajsConsumer({
          kafka: client,
          groupId,
          fromBeginning: true,
          sessionTimeout: 10_000,
          consumerConfig: { maxBytesPerPartition: 4_096, rebalanceTimeout: 10_000 },
          stallTimeoutMs: 15_000,
          logger: quiet,
        }),
      { logger: quiet, policy: fast, stopTimeoutMs: 5_000 },
    )
    let cut = 0
    const frozen: Socket[] = []
    const { source, scored, delivered } = sourceOver(consumer, topic)
    await source.start()
    try {
      await until(
        () => delivered.size >= 10,
        60_000,
        () => 'some runs delivered',
      )
      // Coordinator, fetch leader, everything: the client must reconnect and rejoin.
      // Silently: the peer is gone without a FIN or RST (a network partition): nothing more
      // arrives on the connection and nothing sent reaches the broker. A paused socket that
      // swallows writes is exactly that to kafkajs; destroying it locally is not (kafkajs sometimes
      // notices its next write failing and recovers by itself, which left this case's
      // replacement assertion to chance).
      cut = sockets.size
      for (const socket of sockets) {
        if (silently) {
          socket.pause()
          socket.write = (() => true) as typeof socket.write
          frozen.push(socket)
        } else socket.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))
      }
      await produceHeld()
      await until(
        () => delivered.size >= traffic.runs.length,
        100_000,
        () => 'every run delivered',
      )
      await untilFullyCommitted(kafka, groupId, topic, 'committed to the end')
    } finally {
      await source.stop()
      for (const socket of frozen) socket.destroy()
    }
    expect(cut).toBeGreaterThan(0)
    for (const run of traffic.runs) expect(scored.get(run.traceId), run.traceId).toBe(1)
    if (silently) expect(consumer.replacements()).toBeGreaterThanOrEqual(1)
  })
})
