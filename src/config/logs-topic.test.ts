import { describe, expect, it } from 'vitest'
import { ConfigError } from './config-error.ts'
import { resolveConfig } from './define-config.ts'

function errorOf(input: unknown, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    resolveConfig(input, env)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return error as ConfigError
  }
  throw new Error('expected a ConfigError')
}

describe('kafka.logsTopic', () => {
  it('is off by default', () => {
    expect(resolveConfig({}, {}).kafka.logsTopic).toBeUndefined()
  })

  it('is taken with kafka.repartition, from the file or TRACESCORE_KAFKA_LOGS_TOPIC', () => {
    expect(resolveConfig({ kafka: { logsTopic: 'otlp_logs', repartition: true } }, {}).kafka.logsTopic).toBe(
      'otlp_logs',
    )
    const fromEnv = resolveConfig(
      {},
      { TRACESCORE_KAFKA_LOGS_TOPIC: 'logs_in', TRACESCORE_KAFKA_REPARTITION: 'true' },
    )
    expect(fromEnv.kafka).toMatchObject({ logsTopic: 'logs_in', repartition: true })
  })

  it('without kafka.repartition is refused, naming the key and why', () => {
    const error = errorOf({ kafka: { logsTopic: 'otlp_logs' } })
    expect(error.message).toContain('kafka.logsTopic')
    expect(error.message).toContain('needs kafka.repartition: true')
  })

  it('the span topic again, or an empty name, is refused naming the key', () => {
    const same = errorOf({ kafka: { logsTopic: 'otlp_spans', repartition: true } })
    expect(same.message).toContain('kafka.logsTopic')
    expect(same.message).toContain('must differ from kafka.topic')
    expect(errorOf({ kafka: { logsTopic: '', repartition: true } }).message).toContain('kafka.logsTopic')
  })
})
