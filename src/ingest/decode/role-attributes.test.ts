import { describe, expect, it } from 'vitest'
import { mayHoldMessages } from '../../transform/conventions/generic.ts'
import { MESSAGE_MARKERS, mayHoldMessagesAt } from './role-attributes.ts'

const encoder = new TextEncoder()

/** `mayHoldMessagesAt` on `value`'s UTF-8 bytes, placed inside a larger buffer. */
function atBytes(value: string): boolean {
  const bytes = encoder.encode(`xx${value}yy`)
  return mayHoldMessagesAt(bytes, 2, bytes.length - 2)
}

describe('mayHoldMessagesAt', () => {
  it("accepts every string the generic reader's mayHoldMessages accepts, wherever the marker sits", () => {
    const values: string[] = []
    for (const marker of MESSAGE_MARKERS)
      for (const at of [0, 1, 40, 52, 53, 55, 60, 63, 64, 65, 200])
        for (const open of ['{', '['])
          values.push(`${open}${'é'.repeat(at % 3)}${' '.repeat(at)}${marker}: "x"}`)
    let accepted = 0
    for (const value of values) {
      if (!mayHoldMessages(value)) continue
      accepted++
      expect(atBytes(value), value).toBe(true)
    }
    expect(accepted).toBe(values.length)
  })

  it('turns down strings that do not open like JSON or hold no marker, and a marker cut off at the end', () => {
    expect(atBytes(' {"role": "user"}')).toBe(false)
    expect(atBytes('{"rolex": "user", "x": 1}')).toBe(false)
    expect(atBytes(`{"a": "${'b'.repeat(100)}", "rol`)).toBe(false)
    expect(atBytes(`{"a": "${'b'.repeat(100)}", "role"`)).toBe(true)
    expect(atBytes('{"x":1}')).toBe(false)
  })
})
