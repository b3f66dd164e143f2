import { describe, expect, it } from 'vitest'
import { createRedactor, REDACTION_BUILTINS, redactDeep } from './redact.ts'

// Secrets longer than a row of the table below.
const GITHUB_FINE_GRAINED_TOKEN =
  'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123'
const JSON_WEB_TOKEN =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'

describe('redaction', () => {
  const redact = createRedactor({ builtins: REDACTION_BUILTINS })

  it('masks e-mail addresses, API keys, bearer tokens and card numbers', () => {
    const text =
      'mail jane.doe@example.com, key sk-proj-abcdefghijklmnopqrstuv, card 4111 1111 1111 1111, auth Bearer abcdefghijklmnop1234'
    const out = redact(text)
    expect(out).not.toContain('jane.doe@example.com')
    expect(out).not.toContain('sk-proj-abcdefghijklmnopqrstuv')
    expect(out).not.toContain('4111 1111 1111 1111')
    expect(out).not.toContain('abcdefghijklmnop1234')
    expect(out).toContain('[REDACTED:email]')
    expect(out).toContain('[REDACTED:api-key]')
    expect(out).toContain('[REDACTED:card-number]')
    expect(out).toContain('[REDACTED:bearer-token]')
  })

  it.each([
    ['a fine-grained GitHub token', GITHUB_FINE_GRAINED_TOKEN, 'api-key'],
    ['a classic GitHub token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'api-key'],
    ['an AWS access key id', 'AKIAIOSFODNN7EXAMPLE', 'api-key'],
    ['an AWS secret access key', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'api-key'],
    ['a JSON Web Token', JSON_WEB_TOKEN, 'bearer-token'],
    ['a lower-case bearer token', 'bearer abcdefghijklmnop1234', 'bearer-token'],
    ['a card number with dots', '4111.1111.1111.1111', 'card-number'],
    ['a card number with spaces', '5500 0000 0000 0004', 'card-number'],
    ['an Amex number in 4-6-5 groups', '3782 822463 10005', 'card-number'],
    ['an address with a non-ASCII domain', 'jürgen@bücher.de', 'email'],
    ['an address in a non-Latin script', '用户@例子.广告', 'email'],
    ['an address with a punycode domain', 'user@xn--bcher-kva.de', 'email'],
    ['an address with an underscore', 'first_last@example.org', 'email'],
  ])('masks %s', (_label, secret, name) => {
    const out = redact(`before ${secret} after, as "key=${secret}".`)
    expect(out).not.toContain(secret)
    expect(out).toBe(`before [REDACTED:${name}] after, as "key=[REDACTED:${name}]".`)
  })

  it('finds a card number followed by its expiry, and keeps digit strings that fail the Luhn check', () => {
    expect(redact('card 4111 1111 1111 1111 12 26')).toBe('card [REDACTED:card-number] 12 26')
    expect(redact('at 1764500000000000001 ns')).toBe('at 1764500000000000001 ns')
  })

  it('keeps ordinary text, short numbers, hashes and key-shaped filler', () => {
    for (const text of [
      'order A17 costs 42 euros on 2026-11-30',
      'commit 3f786850e387550fdab836ed7e6dc881de23001b',
      `sk-${'-'.repeat(40)}`,
      'mail to nobody@localhost',
    ]) {
      expect(redact(text)).toBe(text)
    }
  })

  it('applies custom transforms after the built-ins', () => {
    const custom = createRedactor({ custom: [(t) => t.replaceAll('Paris', '<city>')] })
    expect(custom('Weather in Paris')).toBe('Weather in <city>')
  })

  it('redacts deeply without touching the original or non-plain objects', () => {
    const createdAt = new Date(0)
    const run = { input: { messages: [{ text: 'me@x.io', createdAt }] }, n: 3 }
    const out = redactDeep(run, redact)
    expect(out.input.messages[0]!.text).toBe('[REDACTED:email]')
    expect(out.input.messages[0]!.createdAt).toBe(createdAt)
    expect(run.input.messages[0]!.text).toBe('me@x.io')
    expect(out.n).toBe(3)
  })

  it('redacts object keys, and keeps two keys that redact alike apart', () => {
    const out = redactDeep(
      { 'jane@example.com': 1, 'joe@example.com': 2, plain: 3, '[REDACTED:email]': 4 },
      redact,
    )
    expect(out).toEqual({ '[REDACTED:email]': 1, '[REDACTED:email]#2': 2, plain: 3, '[REDACTED:email]#3': 4 })
  })

  it('redacts the text inside bytes, and keeps binary bytes that hold no secret', () => {
    const text = new TextEncoder().encode('token sk-proj-abcdefghijklmnopqrstuv for jürgen@bücher.de')
    const out = redactDeep({ blob: text }, redact).blob
    expect(new TextDecoder().decode(out)).toBe('token [REDACTED:api-key] for [REDACTED:email]')
    expect(new TextDecoder().decode(text)).toContain('sk-proj-') // the original is untouched
    const binary = Uint8Array.from([0xff, 0xfe, 0x00, ...new TextEncoder().encode(' me@x.io '), 0x80])
    const redactedBinary = redactDeep(binary, redact)
    expect(Buffer.from(redactedBinary).toString('latin1')).toBe('\xff\xfe\x00 [REDACTED:email] \x80')
    const clean = Uint8Array.from([1, 2, 3, 0xff])
    expect(redactDeep(clean, redact)).toBe(clean)
  })

  it('copies null-prototype objects (and redacts them), and keeps a "__proto__" key as data', () => {
    const table = Object.assign(Object.create(null) as Record<string, unknown>, { who: 'me@x.io' })
    const out = redactDeep({ table }, redact).table
    expect(Object.getPrototypeOf(out)).toBeNull()
    expect(out.who).toBe('[REDACTED:email]')
    const parsed = JSON.parse('{"__proto__": {"polluted": "me@x.io"}}') as Record<string, unknown>
    const copy = redactDeep(parsed, redact)
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.hasOwn(copy, '__proto__')).toBe(true)
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined()
  })

  it('keeps shared and circular references in the copy', () => {
    const shared = { who: 'me@x.io' }
    const value: Record<string, unknown> = { a: shared, b: shared }
    value.self = value
    const out = redactDeep(value, redact)
    expect(out.a).toBe(out.b)
    expect(out.self).toBe(out)
    expect((out.a as { who: string }).who).toBe('[REDACTED:email]')
  })
})
