import * as crypto from 'node:crypto'
import { sha256First48OfShortAscii } from './sha256-short.ts'

/** How many runs a scorer sees, as Mastra's `ScoringSamplingConfig`: all, or a ratio of traces. */
export type ScoringSamplingConfig = { type: 'none' } | { type: 'ratio'; rate: number }

const TWO_TO_THE_48 = 2 ** 48

/**
 * Maps a trace id to a stable number in [0, 1): the first 6 bytes of SHA-256 of the id's UTF-8
 * text, big-endian, over 2^48 (Mastra's `hashToUnitInterval`).
 */
export function traceIdToUnitInterval(traceId: string): number {
  const first48Bits = sha256First48OfShortAscii(traceId) ?? sha256(traceId).readUIntBE(0, 6)
  return first48Bits / TWO_TO_THE_48
}

/**
 * SHA-256 of a string's UTF-8 bytes: Node's one-shot `crypto.hash` where it has one (22+; a
 * third of the cost of a `Hash` object, and the sampling door hashes every trace id it reads),
 * else `createHash`.
 */
const sha256: (text: string) => Buffer =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (text) => (crypto as unknown as { hash: HashOnce }).hash('sha256', text, 'buffer')
    : (text) => crypto.createHash('sha256').update(text, 'utf8').digest()

type HashOnce = (algorithm: string, data: string, encoding: 'buffer') => Buffer

/**
 * Deterministic ratio sampling, as Mastra's live scoring does it: the same trace id gives the
 * same answer on every instance and replay, and every scorer at one rate selects the same traces.
 * The id is hashed as given (Mastra's ids are lowercase hex); a NaN rate samples nothing.
 */
export function shouldSample(traceId: string, rate: number): boolean {
  return traceIdToUnitInterval(traceId) < rate
}

/**
 * Whether a scorer with this sampling config scores the run of this trace: no config or
 * `'none'` scores everything, `'ratio'` uses {@link shouldSample}, and an unknown type scores
 * nothing (fail closed, as Mastra).
 */
export function isSampled(config: ScoringSamplingConfig | undefined, traceId: string): boolean {
  if (!config) return true
  switch (config.type) {
    case 'none':
      return true
    case 'ratio':
      return shouldSample(traceId, config.rate)
    default:
      return false
  }
}
