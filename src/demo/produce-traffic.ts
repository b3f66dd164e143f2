import type { Kafka } from 'kafkajs'
import { shiftTracesToPresent } from './shift-to-present.ts'
import { type TrafficSample, withFreshIds } from './traffic.ts'

/**
 * Produces `count` records to `topic`, cycling through the samples, each under fresh trace and
 * span ids and moved to the present; also posts each to Phoenix when `phoenixUrl` is given (so
 * the traces are there next to their scores). Returns the trace ids produced.
 */
export async function produceTraffic(options: {
  kafka: Kafka
  topic: string
  samples: TrafficSample[]
  count: number
  phoenixUrl: string | undefined
}): Promise<Set<string>> {
  const { kafka, topic, samples, count, phoenixUrl } = options
  const producer = kafka.producer()
  await producer.connect()
  const traceIds = new Set<string>()
  try {
    for (let i = 0; i < count; i++) {
      const fresh = withFreshIds(samples[i % samples.length]!)
      // Recorded months ago: moved to now, so the runs sit in the backend's default time window
      // next to the scores written for them.
      const payload = shiftTracesToPresent(fresh.payload, Date.now())
      for (const id of fresh.traceIds) traceIds.add(id)
      await producer.send({ topic, messages: [{ key: fresh.traceIds[0] ?? null, value: payload }] })
      if (phoenixUrl) {
        await fetch(`${phoenixUrl}/v1/traces`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-protobuf' },
          body: payload,
        }).catch(() => {})
      }
    }
  } finally {
    await producer.disconnect()
  }
  return traceIds
}
