import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  KafkaJSConnectionError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  KafkaJSSASLAuthenticationError,
} from 'kafkajs'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../config/config-error.ts'
import { resolveConfig } from '../config/define-config.ts'
import { describeKafkaError, kafkaTlsOptions } from './kafka-security.ts'

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'
const dir = mkdtempSync(join(tmpdir(), 'tracescore-tls-'))
const caFile = join(dir, 'ca.pem')
writeFileSync(caFile, PEM)

describe('kafka.ssl', () => {
  it('passes booleans through and reads PEM files, keeping PEM text and the other options', () => {
    expect(kafkaTlsOptions(true)).toBe(true)
    expect(kafkaTlsOptions(false)).toBe(false)
    expect(kafkaTlsOptions({ ca: caFile, cert: PEM, key: PEM, servername: 'kafka-1' })).toEqual({
      ca: [PEM],
      cert: PEM,
      key: PEM,
      servername: 'kafka-1',
    })
    expect(kafkaTlsOptions({ ca: [caFile, PEM] })).toEqual({ ca: [PEM, PEM] })
  })

  it('names the key of a PEM file that cannot be read', () => {
    const error = (() => {
      try {
        kafkaTlsOptions({ ca: join(dir, 'missing.pem') })
      } catch (e) {
        return e as ConfigError
      }
    })()
    expect(error).toBeInstanceOf(ConfigError)
    expect(error!.message).toMatch(/^kafka\.ssl\.ca: cannot read the PEM file .*missing\.pem \(ENOENT\)$/)
  })

  it('is validated with the configuration: a missing CA file is a config error naming kafka.ssl.ca', () => {
    expect(resolveConfig({ kafka: { ssl: { ca: caFile } } }, {}).kafka.ssl).toEqual({ ca: caFile })
    expect(() => resolveConfig({ kafka: { ssl: { ca: '/nonexistent/ca.pem' } } }, {})).toThrow(
      /kafka\.ssl\.ca/,
    )
    expect(() => resolveConfig({ kafka: { ssl: { verify: true } } }, {})).toThrow(/kafka\.ssl/)
  })
})

describe('describeKafkaError', () => {
  it('blames kafka.sasl for rejected credentials, without adding anything secret', () => {
    const error = new KafkaJSSASLAuthenticationError(
      // @ts-expect-error kafkajs' typings leave out the constructor's message
      'SASL SCRAM SHA512 authentication failed: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512',
    )
    expect(describeKafkaError(error)).toMatch(
      /^kafka\.sasl: the broker rejected the username or password \(SASL SCRAM/,
    )
  })

  it('blames kafka.sasl.mechanism for a mechanism the broker does not offer', () => {
    const error = new KafkaJSProtocolError({
      // @ts-expect-error kafkajs' typings take an Error; the broker's error codes carry a type
      type: 'UNSUPPORTED_SASL_MECHANISM',
      code: 33,
      retriable: false,
      message: 'The broker does not support the requested SASL mechanism',
    })
    expect(describeKafkaError(error)).toMatch(/^kafka\.sasl\.mechanism: /)
  })

  it('blames kafka.ssl for an untrusted certificate, found under kafkajs retry wrappers', () => {
    const socket = Object.assign(new Error('self-signed certificate in certificate chain'), {
      code: 'SELF_SIGNED_CERT_IN_CHAIN',
    })
    const connection = new KafkaJSConnectionError(`Connection error: ${socket.message}`, {
      broker: '127.0.0.1:9094',
      code: socket.code,
    } as never)
    const retries = new KafkaJSNumberOfRetriesExceeded(connection, { retryCount: 5, retryTime: 1000 })
    expect(describeKafkaError(retries)).toMatch(
      /^kafka\.ssl: the broker's certificate is not trusted; set kafka\.ssl\.ca to the CA that signed it \(/,
    )
  })

  it('keeps any other error as it is', () => {
    expect(describeKafkaError(new Error('connect ECONNREFUSED 127.0.0.1:9092'))).toBe(
      'broker not reachable: connect ECONNREFUSED 127.0.0.1:9092',
    )
  })
})
