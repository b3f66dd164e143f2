import { createHash, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { sha256First48OfShortAscii } from './sha256-short.ts'

const ofCrypto = (text: string) => createHash('sha256').update(text, 'utf8').digest().readUIntBE(0, 6)

describe('sha256First48OfShortAscii', () => {
  it('gives the first 48 bits of crypto SHA-256 for every ASCII length that fits one block', () => {
    for (let length = 0; length <= 55; length++) {
      for (let k = 0; k < 20; k++) {
        const text = String.fromCharCode(...randomBytes(length).map((b) => b & 0x7f))
        expect(sha256First48OfShortAscii(text), JSON.stringify(text)).toBe(ofCrypto(text))
      }
    }
  })

  it('matches on trace ids, hex as every SDK writes them', () => {
    for (let k = 0; k < 2_000; k++) {
      const id = randomBytes(16).toString('hex')
      expect(sha256First48OfShortAscii(id)).toBe(ofCrypto(id))
    }
  })

  it('declines what does not fit one block or is not ASCII (crypto hashes those)', () => {
    expect(sha256First48OfShortAscii('x'.repeat(56))).toBeUndefined()
    expect(sha256First48OfShortAscii('trace-é')).toBeUndefined()
  })
})
