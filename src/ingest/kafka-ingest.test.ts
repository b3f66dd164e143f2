import type { ConsumerConfig } from 'kafkajs'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../config/index.ts'
import { createKafkaIngest } from './kafka-ingest.ts'

/** kafkajs stand-ins that record the consumers' configurations and do nothing else. */
function fakeClients() {
  const consumers: ConsumerConfig[] = []
  const noop = async () => {}
  const kafka = {
    consumer: (config: ConsumerConfig) => {
      consumers.push(config)
      return {
        events: new Proxy({}, { get: (_, name) => String(name) }),
        on: () => () => {},
        connect: noop,
        subscribe: noop,
        run: noop,
        disconnect: noop,
        pause() {},
        resume() {},
      }
    },
  }
  const producer = { connect: noop, disconnect: noop, send: async () => [] }
  const admin = {
    connect: noop,
    disconnect: noop,
    listTopics: async () => ['otlp_spans', 'otlp_spans.by_trace'],
    createTopics: async () => true,
    fetchTopicMetadata: async () => ({ topics: [{ name: 'otlp_spans', partitions: [{ partitionId: 0 }] }] }),
  }
  return { consumers, kafka, producer, admin }
}

async function consumerConfigs(kafka: Record<string, unknown>): Promise<ConsumerConfig[]> {
  const clients = fakeClients()
  const ingest = createKafkaIngest({
    config: resolveConfig({ kafka }, {}),
    kafka: clients.kafka as never,
    producer: clients.producer as never,
    admin: clients.admin as never,
    logger: pino({ level: 'silent' }),
    isAgentRunSpan: () => false,
    isGenAiSpan: () => false,
    process: async () => undefined,
    targets: [],
  })
  await ingest.start(new AbortController().signal)
  await ingest.stop()
  return clients.consumers
}

describe('the ingest stage configures its kafkajs consumers from the configuration', () => {
  // kafkajs sleeps maxWaitTimeInMs whenever every partition is paused, so it bounds how long
  // reading stays idle after backpressure lifts: the default is short (100 ms), not kafkajs's 5 s.
  it('fetch wait and session timeout: the defaults, then configured values, for the source and the repartitioner', async () => {
    const defaults = await consumerConfigs({})
    expect(defaults).toHaveLength(1)
    expect(defaults[0]).toMatchObject({ maxWaitTimeInMs: 100, sessionTimeout: 30_000, groupId: 'tracescore' })
    // A fetch asks 256 KiB per partition, not kafkajs's 1 MiB: buffered spans pin their response.
    expect(defaults[0]).toMatchObject({ maxBytesPerPartition: 256 * 1024 })

    const tuned = await consumerConfigs({ fetchMaxWaitMs: 250, sessionTimeoutMs: 12_000, repartition: true })
    expect(tuned).toHaveLength(2)
    for (const config of tuned) expect(config).toMatchObject({ maxWaitTimeInMs: 250, sessionTimeout: 12_000 })
  })

  it('rejects a fetch wait that is not a positive number of milliseconds, naming the key', () => {
    expect(() => resolveConfig({ kafka: { fetchMaxWaitMs: 0 } }, {})).toThrow(/kafka\.fetchMaxWaitMs/)
  })
})
