import { describe, expect, it } from 'vitest'
import { OtlpDecodeError } from './decode-error.ts'
import { decodeOtlpJsonLines } from './decode-json-lines.ts'
import { encodeJson, expectedSpans, rng, SpanGenerator } from './testing/generated-spans.ts'

describe('decodeOtlpJsonLines', () => {
  it('decodes one request per line in file order, skipping blank lines and CRLF endings', () => {
    const gen = new SpanGenerator(rng(11))
    const requests = [gen.request(), gen.request(), gen.request()]
    const text = `${encodeJson(requests[0]!)}\r\n\n${encodeJson(requests[1]!, 'base64')}\n   \n${encodeJson(requests[2]!)}`
    expect(decodeOtlpJsonLines(text)).toEqual(requests.flatMap(expectedSpans))
  })

  it('returns no spans for an empty file', () => {
    expect(decodeOtlpJsonLines('')).toEqual([])
    expect(decodeOtlpJsonLines('\n\n')).toEqual([])
  })

  it('names the line of a bad request', () => {
    const good = encodeJson(new SpanGenerator(rng(12)).request())
    try {
      decodeOtlpJsonLines(`${good}\n${good}\n{"resourceSpans": 3}\n`)
      expect.fail('expected an error')
    } catch (error) {
      expect(error).toBeInstanceOf(OtlpDecodeError)
      expect((error as OtlpDecodeError).message).toMatch(/^line 3: /)
      expect((error as OtlpDecodeError).code).toBe('invalid_field')
      expect((error as OtlpDecodeError).offset).toBe(2 * (good.length + 1))
      expect((error as OtlpDecodeError).path).toBe('resourceSpans')
    }
  })
})
