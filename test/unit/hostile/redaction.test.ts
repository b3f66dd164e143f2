/**
 * Redaction on hostile text (issue 11). Each input is a worst case for a pattern that backtracks:
 * with a quadratic pattern the 256 KiB inputs below take minutes (the e-mail pattern of before
 * took 0.7 s on 20k characters and 12 s on 80k), so the test timeout fails them; linear
 * patterns take milliseconds. The assertions are about the result.
 */
import { describe, expect, it } from 'vitest'
import { createRedactor, REDACTION_BUILTINS, redactDeep } from '../../../src/scoring/redact.ts'
import { base64Run, deepJsonText, redactionWorstCase } from '../../helpers/hostile-inputs.ts'

const SIZE = 256 * 1024
const redact = createRedactor({ builtins: REDACTION_BUILTINS })

/** Equality of long texts, reported as the first difference rather than both texts. */
function expectSameText(actual: string, expected: string): void {
  let at = 0
  while (at < actual.length && actual[at] === expected[at]) at++
  const around = (text: string) => text.slice(Math.max(0, at - 20), at + 40)
  expect({ length: actual.length, at: around(actual) }).toEqual({
    length: expected.length,
    at: around(expected),
  })
}

describe('redaction of hostile text', () => {
  it.each([
    ['a base64 blob (e-mail local-part characters without @)', base64Run(SIZE)],
    ['every pattern at once', redactionWorstCase(SIZE)],
    ['local parts each followed by @ and no domain', 'a@'.repeat(SIZE / 2)],
    ['domains without a top-level domain', 'a@b.'.repeat(SIZE / 4)],
    ['key prefixes with too short keys', 'sk-abc '.repeat(SIZE / 7)],
    ['JWT headers without a payload', 'eyJ.'.repeat(SIZE / 4)],
    ['digit groups that never make a card', '1.'.repeat(SIZE / 2)],
    ['bearer without a token', 'bearer '.repeat(SIZE / 7)],
  ])('passes %s through unchanged in one pass', (_label, text) => {
    expectSameText(redact(text), text)
  })

  it('still finds the secrets that follow a hostile run', () => {
    const text = `${base64Run(SIZE)} jane@example.com ${'1 '.repeat(SIZE / 2)}card 4111 1111 1111 1111.`
    expectSameText(
      redact(text),
      `${base64Run(SIZE)} [REDACTED:email] ${'1 '.repeat(SIZE / 2)}card [REDACTED:card-number].`,
    )
  })

  it('copies a value nested 200,000 levels deep (JSON in a tool argument) without overflowing', () => {
    const deep = JSON.parse(deepJsonText(1_200_000).replace('1}', '"me@x.io"}'))
    const out = redactDeep({ args: deep }, redact)
    let node: any = out.args
    let depth = 0
    while (typeof node === 'object') {
      node = node.a
      depth++
    }
    expect(depth).toBe(199_999)
    expect(node).toBe('[REDACTED:email]')
  })
})
