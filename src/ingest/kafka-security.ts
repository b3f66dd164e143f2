import { readFileSync } from 'node:fs'
import type { ConnectionOptions } from 'node:tls'
import { ConfigError } from '../config/config-error.ts'

/** `kafka.ssl`: on with the system's CAs, or TLS options whose PEM values are text or file paths. */
type KafkaSslSetting =
  | boolean
  | {
      ca?: string | string[]
      cert?: string
      key?: string
      passphrase?: string
      rejectUnauthorized?: boolean
      servername?: string
    }

/** True for PEM text (as opposed to the path of a PEM file). */
export function isPemText(value: string): boolean {
  return value.trimStart().startsWith('-----BEGIN')
}

function pem(value: string, key: string): string {
  if (isPemText(value)) return value
  try {
    return readFileSync(value, 'utf8')
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    throw new ConfigError(`${key}: cannot read the PEM file ${value} (${reason})`, [
      { key, message: `cannot read ${value}` },
    ])
  }
}

/** The kafkajs `ssl` option for a `kafka.ssl` setting: PEM files read, everything else as given. */
export function kafkaTlsOptions(ssl: KafkaSslSetting): boolean | ConnectionOptions {
  if (typeof ssl === 'boolean') return ssl
  const { ca, cert, key, ...rest } = ssl
  return {
    ...rest,
    ...(ca !== undefined
      ? {
          ca: (Array.isArray(ca) ? ca : [ca]).map((c, i) =>
            pem(c, `kafka.ssl.ca${Array.isArray(ca) ? `[${i}]` : ''}`),
          ),
        }
      : {}),
    ...(cert !== undefined ? { cert: pem(cert, 'kafka.ssl.cert') } : {}),
    ...(key !== undefined ? { key: pem(key, 'kafka.ssl.key') } : {}),
  }
}

/** Node's codes for a TLS peer whose certificate cannot be verified. */
const UNTRUSTED_CERTIFICATE = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
])

/** The error and the errors it wraps (kafkajs keeps the socket's error as `cause`/`originalError`). */
function chain(error: unknown): { name?: string; message?: string; code?: unknown; type?: unknown }[] {
  const out: { name?: string; message?: string; code?: unknown; type?: unknown }[] = []
  let current = error as { cause?: unknown; originalError?: unknown } | undefined
  while (current && typeof current === 'object' && out.length < 5) {
    out.push(current as (typeof out)[number])
    current = (current.cause ?? current.originalError) as typeof current
  }
  return out
}

/**
 * Explains a Kafka client error by the setting that causes it — `kafka.sasl` for rejected
 * credentials or mechanism, `kafka.ssl` for an untrusted or mismatched broker certificate —
 * and falls back to the error's own message. Never includes a secret: kafkajs' messages do
 * not carry the password, and nothing from the configuration is added.
 */
export function describeKafkaError(error: unknown): string {
  const errors = chain(error)
  const message = (error as Error)?.message ?? String(error)
  const codes = new Set(errors.map((e) => e.code))
  if (errors.some((e) => e.name === 'KafkaJSSASLAuthenticationError')) {
    return `kafka.sasl: the broker rejected the username or password (${message})`
  }
  if (errors.some((e) => e.type === 'UNSUPPORTED_SASL_MECHANISM')) {
    return `kafka.sasl.mechanism: the broker does not offer this SASL mechanism (${message})`
  }
  if ([...codes].some((c) => typeof c === 'string' && UNTRUSTED_CERTIFICATE.has(c))) {
    return `kafka.ssl: the broker's certificate is not trusted; set kafka.ssl.ca to the CA that signed it (${message})`
  }
  if (codes.has('ERR_TLS_CERT_ALTNAME_INVALID')) {
    return `kafka.ssl: the broker's certificate does not name the host connected to; check kafka.brokers or set kafka.ssl.servername (${message})`
  }
  return `broker not reachable: ${message}`
}
