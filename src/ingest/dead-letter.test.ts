import { describe, expect, it } from 'vitest'
import { DeadLetterHeader, deadLetterMessage, errorCode } from './dead-letter.ts'
import { OtlpDecodeError } from './decode/index.ts'

describe('dead-letter records', () => {
  it('keeps key, value, timestamp and original headers, and adds the error and the origin', () => {
    const value = Buffer.from([0xff, 0x01])
    const message = deadLetterMessage({
      topic: 'otlp_spans',
      partition: 3,
      offset: '42',
      key: Buffer.from('k'),
      value,
      headers: { traceparent: 'abc', dropped: undefined },
      timestamp: '1796029200000',
      error: new OtlpDecodeError('truncated', 'length runs past the end', { offset: 1 }),
    })
    expect(message.key).toEqual(Buffer.from('k'))
    expect(message.value).toBe(value)
    expect(message.timestamp).toBe('1796029200000')
    expect(message.headers).toEqual({
      traceparent: 'abc',
      [DeadLetterHeader.error]: 'length runs past the end at offset 1',
      [DeadLetterHeader.errorCode]: 'truncated',
      [DeadLetterHeader.topic]: 'otlp_spans',
      [DeadLetterHeader.partition]: '3',
      [DeadLetterHeader.offset]: '42',
    })
  })

  it('names the error by its code, else its class, else unknown', () => {
    expect(errorCode(new OtlpDecodeError('invalid_json', 'x'))).toBe('invalid_json')
    expect(errorCode(new TypeError('x'))).toBe('TypeError')
    expect(errorCode('a string')).toBe('unknown')
  })
})
