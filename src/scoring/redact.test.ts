import { describe, expect, it } from 'vitest'
import { createRedactor, redactDeep } from './redact.ts'

describe('redaction', () => {
  const redact = createRedactor({ builtins: ['email', 'api-key', 'card-number', 'bearer-token'] })

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

  it('keeps ordinary text and short numbers', () => {
    expect(redact('order A17 costs 42 euros on 2026-11-30')).toBe('order A17 costs 42 euros on 2026-11-30')
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
})
