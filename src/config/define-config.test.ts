import { describe, expect, it } from 'vitest'
import { ConfigError } from './config-error.ts'
import { resolveConfig } from './define-config.ts'

const scorer = { id: 'len', run: async () => ({ score: 1 }) }

function errorOf(input: unknown, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    resolveConfig(input, env)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return error as ConfigError
  }
  throw new Error('expected a ConfigError')
}

describe('resolveConfig', () => {
  it('fills every default from an empty config', () => {
    const config = resolveConfig({}, {})
    expect(config.kafka).toMatchObject({
      brokers: ['127.0.0.1:9092'],
      topic: 'otlp_spans',
      encoding: 'auto',
      sessionTimeoutMs: 30_000,
    })
    expect(config.assembly.settleMs).toBe(2000)
    expect(config.judges.defaultLimits.concurrency).toBe(4)
    expect(config.sinks.otlp).toEqual({
      endpoint: 'http://localhost:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      timeoutMs: 10_000,
      compression: 'none',
      exportThread: 'main',
    })
    expect(config.metrics.port).toBe(9464)
  })

  it('applies environment overrides over the file', () => {
    const config = resolveConfig(
      { kafka: { brokers: ['a:1'], topic: 'x' } },
      { KAFKA_BROKERS: 'b:2, c:3', TRACESCORE_KAFKA_TOPIC: 'spans', TRACESCORE_METRICS_PORT: '0' },
    )
    expect(config.kafka.brokers).toEqual(['b:2', 'c:3'])
    expect(config.kafka.topic).toBe('spans')
    expect(config.metrics.port).toBe(0)
  })

  it('takes Kafka TLS, SASL and repartitioning from the environment (a Kubernetes Secret), over the file', () => {
    const config = resolveConfig(
      { kafka: { sasl: { mechanism: 'plain', username: 'file', password: 'file' } } },
      {
        TRACESCORE_KAFKA_SSL: 'true',
        TRACESCORE_KAFKA_REPARTITION: '1',
        TRACESCORE_KAFKA_SASL_MECHANISM: 'scram-sha-512',
        TRACESCORE_KAFKA_SASL_PASSWORD: 's3cret',
      },
    )
    expect(config.kafka.ssl).toBe(true)
    expect(config.kafka.repartition).toBe(true)
    expect(config.kafka.sasl).toEqual({ mechanism: 'scram-sha-512', username: 'file', password: 's3cret' })
    expect(resolveConfig({}, {}).kafka.sasl).toBeUndefined()
  })

  it('names the variable of a bad SASL setting without showing the password', () => {
    const env = { TRACESCORE_KAFKA_SASL_MECHANISM: 'kerberos', TRACESCORE_KAFKA_SASL_PASSWORD: 'hunter2' }
    const { message } = errorOf({}, env)
    expect(message).toContain('kafka.sasl.mechanism')
    expect(message).toContain('TRACESCORE_KAFKA_SASL_MECHANISM')
    expect(message).not.toContain('hunter2')
  })

  it('sizes the span buffer by its bytes: the span cap follows the byte cap unless set', () => {
    const config = resolveConfig({}, { TRACESCORE_MAX_BUFFERED_BYTES: String(512 * 1024 * 1024) })
    expect(config.assembly.maxBufferedBytes).toBe(512 * 1024 * 1024)
    expect(config.assembly.maxBufferedSpans).toBe(2 * 1024 * 1024)
    const both = resolveConfig({ assembly: { maxBufferedBytes: 1_000_000, maxBufferedSpans: 10 } }, {})
    expect(both.assembly).toMatchObject({ maxBufferedBytes: 1_000_000, maxBufferedSpans: 10 })
  })

  it('accepts any object with id and run() as a scorer', () => {
    const config = resolveConfig({ scorers: { len: { scorer, sampling: { type: 'ratio', rate: 0.5 } } } }, {})
    expect(config.scorers.len?.scorer).toBe(scorer)
  })

  const bad: [string, unknown, NodeJS.ProcessEnv, string][] = [
    ['not an object', 42, {}, 'expected an object'],
    ['broker without port', { kafka: { brokers: ['localhost'] } }, {}, 'kafka.brokers.0'],
    ['empty broker list', { kafka: { brokers: [] } }, {}, 'kafka.brokers'],
    ['bad encoding', { kafka: { encoding: 'avro' } }, {}, 'kafka.encoding'],
    ['bad encoding from env', {}, { TRACESCORE_KAFKA_ENCODING: 'xml' }, 'kafka.encoding: Invalid option'],
    ['negative settle', { assembly: { settleMs: -1 } }, {}, 'assembly.settleMs'],
    ['zero byte cap', { assembly: { maxBufferedBytes: 0 } }, {}, 'assembly.maxBufferedBytes'],
    ['byte cap from env', {}, { TRACESCORE_MAX_BUFFERED_BYTES: '1GiB' }, 'assembly.maxBufferedBytes'],
    [
      'rate above 1',
      { scorers: { s: { scorer, sampling: { type: 'ratio', rate: 2 } } } },
      {},
      'scorers.s.sampling.rate',
    ],
    [
      'unknown sampling type',
      { scorers: { s: { scorer, sampling: { type: 'some' } } } },
      {},
      'scorers.s.sampling.type',
    ],
    ['scorer without run', { scorers: { s: { scorer: { id: 'x' } } } }, {}, 'scorers.s.scorer'],
    ['unknown top-level key', { kafak: {} }, {}, 'unknown key kafak'],
    ['unknown nested key', { sinks: { otlp: { endpoit: 'x' } } }, {}, 'unknown key sinks.otlp.endpoit'],
    ['bad otlp endpoint', { sinks: { otlp: { endpoint: 'not a url' } } }, {}, 'sinks.otlp.endpoint'],
    [
      'bad otlp protocol',
      { sinks: { otlp: { protocol: 'grpc' } } },
      {},
      'sinks.otlp.protocol: Invalid option',
    ],
    [
      'bad otlp export thread',
      { sinks: { otlp: { exportThread: 'pool' } } },
      {},
      'sinks.otlp.exportThread: Invalid option: expected one of "worker"|"main"',
    ],
    ['metrics port out of range', { metrics: { port: 70000 } }, {}, 'metrics.port'],
    ['bad log level', { log: { level: 'loud' } }, {}, 'log.level'],
    [
      'non-integer concurrency',
      { judges: { models: { 'openai/gpt-5-mini': { concurrency: 1.5 } } } },
      {},
      'judges.models.openai/gpt-5-mini.concurrency',
    ],
  ]
  it.each(bad)('rejects %s, naming the key', (_label, input, env, expected) => {
    const error = errorOf(input, env)
    expect(error.exitCode).toBe(2)
    expect(error.message).toContain(expected)
  })

  it('never echoes secret values in its message', () => {
    const error = errorOf({
      kafka: { sasl: { mechanism: 'plain', username: 'u', password: 12345 } },
      sinks: { langfuse: { url: 'http://x', publicKey: 'pk', secretKey: 'sk-very-secret' }, stdout: 'yes' },
    })
    expect(error.message).toContain('kafka.sasl.password')
    expect(error.message).not.toContain('sk-very-secret')
    expect(error.message).not.toContain('12345')
  })
})

describe('resolveConfig on hostile config modules', () => {
  it('turns a getter that throws into a ConfigError naming its key', () => {
    const input = {
      kafka: {
        topic: 't',
        get groupId(): string {
          throw new Error('vault unreachable')
        },
      },
    }
    expect(() => resolveConfig(input, {})).toThrow(ConfigError)
    expect(() => resolveConfig(input, {})).toThrow(
      'kafka.groupId: reading this value threw: vault unreachable',
    )
  })

  it('reports a scorer whose getters throw as not a scorer, naming the key', () => {
    const scorer = {
      get id(): string {
        throw new Error('no id')
      },
      run: async () => ({ score: 1 }),
    }
    expect(() => resolveConfig({ scorers: { s: { scorer } } }, {})).toThrow(
      /scorers\.s\.scorer: expected a scorer/,
    )
  })

  it('keeps scorers as they are (not copies), and copies plain sections', () => {
    const scorer = { id: 's', run: async () => ({ score: 1 }) }
    const input = { scorers: { s: { scorer } } }
    expect(resolveConfig(input, {}).scorers.s!.scorer).toBe(scorer)
  })

  it('rejects sink URLs with a password without repeating it', () => {
    let message = ''
    try {
      resolveConfig(
        {
          sinks: {
            langfuse: { url: 'https://pk:hunter2@cloud.langfuse.com', publicKey: 'p', secretKey: 's' },
          },
        },
        {},
      )
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toContain('sinks.langfuse.url: a user name or password in the URL is not accepted')
    expect(message).not.toContain('hunter2')
  })
})

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
