import { describe, expect, it, vi } from 'vitest'

const clients = vi.hoisted(() => ({ created: 0 }))
vi.mock('kafkajs', async (importOriginal) => {
  const kafkajs = await importOriginal<typeof import('kafkajs')>()
  /** kafkajs's client, counted: the pipeline must build one per process. */
  class CountedKafka extends kafkajs.Kafka {
    constructor(config: ConstructorParameters<typeof kafkajs.Kafka>[0]) {
      super(config)
      clients.created++
    }
  }
  // codecs.ts reads CompressionCodecs from the CommonJS default export, so it is kept too.
  const commonjs = (kafkajs as unknown as { default: object }).default
  return { ...kafkajs, default: { ...commonjs, Kafka: CountedKafka }, Kafka: CountedKafka }
})

const { resolveConfig } = await import('./config/index.ts')
const { createPipeline } = await import('./pipeline.ts')
const { silentLogger } = await import('./ops/logger.ts')

describe('createPipeline', () => {
  it('builds one Kafka client for the source, the repartitioner, dead letters, decisions and the Kafka score sink', () => {
    const config = resolveConfig(
      {
        kafka: { repartition: true, decisionsTopic: 'decisions' },
        sinks: { otlp: false, kafka: { topic: 'scores' } },
        metrics: { port: 0 },
      },
      {},
    )
    createPipeline(config, { logger: silentLogger() })
    expect(clients.created).toBe(1)
  })
})
