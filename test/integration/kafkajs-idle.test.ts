/**
 * kafkajs 2.2.4 arms a 1 ms timer on every connection forever when nothing is pending, and Node 24
 * warns about its negative delay (`fixKafkajsRequestQueue`). An idle consumer from the process's
 * Kafka client, against the real broker, arms no such timer loop and prints no warning.
 */
import { afterAll, expect, it } from 'vitest'
import { resolveConfig } from '../../src/config/index.ts'
import { createKafkaClient } from '../../src/ingest/kafka-client.ts'
import { silentLogger } from '../../src/ops/logger.ts'
import { createTopic, deleteTopics, testBrokers, uniqueName } from '../helpers/kafka.ts'

const topic = uniqueName('idle')

afterAll(async () => {
  const kafka = createKafkaClient(
    resolveConfig({ kafka: { brokers: testBrokers() } }, {}).kafka,
    silentLogger(),
  )
  await deleteTopics(kafka, [topic])
})

it('an idle consumer arms no 1 ms timer loop and emits no TimeoutNegativeWarning', async () => {
  const kafka = createKafkaClient(
    resolveConfig({ kafka: { brokers: testBrokers() } }, {}).kafka,
    silentLogger(),
  )
  await createTopic(kafka, topic, 2)
  const consumer = kafka.consumer({ groupId: uniqueName('idle'), maxWaitTimeInMs: 100 })
  const warnings: string[] = []
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`)
  process.on('warning', onWarning)
  const realSetTimeout = globalThis.setTimeout
  let shortTimers = 0
  try {
    await consumer.connect()
    await consumer.subscribe({ topics: [topic], fromBeginning: true })
    let fetched = 0
    await consumer.run({ eachBatch: async () => {} })
    consumer.on(consumer.events.FETCH, () => fetched++)
    while (fetched < 3) await new Promise((resolve) => realSetTimeout(resolve, 50))
    // Count the timers armed for at most 1 ms while the consumer keeps fetching an empty topic.
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      if (args[1] === undefined || args[1] <= 1) shortTimers++
      return realSetTimeout(...args)
    }) as typeof setTimeout
    const fetchedBefore = fetched
    while (fetched < fetchedBefore + 5) await new Promise((resolve) => realSetTimeout(resolve, 50))
  } finally {
    globalThis.setTimeout = realSetTimeout
    process.off('warning', onWarning)
    await consumer.disconnect()
  }
  // Stock kafkajs arms one per connection per millisecond: hundreds over five fetches of 100 ms.
  expect(shortTimers).toBeLessThan(20)
  expect(warnings.filter((w) => w.startsWith('TimeoutNegativeWarning'))).toEqual([])
})
