import type { Admin } from 'kafkajs'
import type { Logger } from './logger.ts'
import type { Metrics } from './metrics.ts'

/**
 * Reads the consumer lag into `tracescore_consumer_lag{partition}` (high watermark minus the
 * group's committed offset, or minus the low watermark when nothing is committed); called at
 * scrape time. A broker that does not answer leaves the gauge as it was.
 */
export async function refreshConsumerLag(
  admin: Admin,
  { groupId, topic }: { groupId: string; topic: string },
  gauge: Metrics['consumerLag'],
  logger: Logger,
): Promise<void> {
  try {
    const [ends, committed] = await Promise.all([
      admin.fetchTopicOffsets(topic),
      admin.fetchOffsets({ groupId, topics: [topic] }),
    ])
    const done = new Map(committed[0]?.partitions.map((p) => [p.partition, Number(p.offset)]) ?? [])
    for (const end of ends) {
      const at = done.get(end.partition) ?? -1
      gauge.set({ partition: String(end.partition) }, Number(end.high) - (at >= 0 ? at : Number(end.low)))
    }
  } catch (error) {
    logger.debug({ err: error }, 'consumer lag not available')
  }
}
