import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../config/index.ts'
import { createKafkaClient } from '../ingest/kafka-client.ts'
import { createLogger } from './logger.ts'

describe("kafkajs's log lines", () => {
  it('go through the process logger as JSON, with component kafkajs and the namespace, kafkajs errors as warnings', () => {
    const lines: Record<string, unknown>[] = []
    const logger = createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) })
    const kafka = createKafkaClient(resolveConfig({}, {}).kafka, logger)
    kafka.logger().namespace('Consumer').warn('Crash: KafkaJSNumberOfRetriesExceeded', { groupId: 'g' })
    kafka
      .logger()
      .namespace('Connection')
      .error('Response Metadata(key: 3, version: 6)', { error: 'retried' })
    kafka.logger().info('below the client level (WARN): dropped')
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        service: 'tracescore',
        component: 'kafkajs',
        namespace: 'Consumer',
        groupId: 'g',
        msg: 'Crash: KafkaJSNumberOfRetriesExceeded',
      }),
      // kafkajs's ERROR is a request error it retries: a warning in tracescore's log, marked.
      expect.objectContaining({
        level: 40,
        component: 'kafkajs',
        namespace: 'Connection',
        kafkajsLevel: 'ERROR',
      }),
    ])
  })
})
