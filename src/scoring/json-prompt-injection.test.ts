import { describe, expect, it } from 'vitest'
import {
  fallbackSchemaPlacement,
  injectSchema,
  inlineSchemaInstruction,
  resolveSchemaPlacement,
  systemSchemaInstruction,
} from './json-prompt-injection.ts'

const schema = { type: 'object' as const }

describe('schema placement', () => {
  it('resolves each jsonPromptInjection value; auto asks the model capability', () => {
    expect(resolveSchemaPlacement(false, () => true)).toBe('native')
    expect(resolveSchemaPlacement(true, () => true)).toBe('system')
    expect(resolveSchemaPlacement('system', () => true)).toBe('system')
    expect(resolveSchemaPlacement('inline', () => true)).toBe('inline')
    expect(resolveSchemaPlacement('auto', () => true)).toBe('native')
    expect(resolveSchemaPlacement('auto', () => false)).toBe('inline')
  })

  it('format retry: the configured fallback, else inline/system kept, else system', () => {
    expect(fallbackSchemaPlacement(false, undefined)).toBe('system')
    expect(fallbackSchemaPlacement('auto', undefined)).toBe('system')
    expect(fallbackSchemaPlacement(true, undefined)).toBe('system')
    expect(fallbackSchemaPlacement('inline', undefined)).toBe('inline')
    expect(fallbackSchemaPlacement(false, 'inline')).toBe('inline')
  })

  it('system placement without a system message adds one; inline without a user message adds one', () => {
    expect(injectSchema([{ role: 'user', content: 'q' }], 'system', schema)).toEqual([
      { role: 'system', content: systemSchemaInstruction(schema) },
      { role: 'user', content: 'q' },
    ])
    expect(injectSchema([{ role: 'system', content: 's' }], 'inline', schema)).toEqual([
      { role: 'system', content: 's' },
      { role: 'user', content: [{ type: 'text', text: inlineSchemaInstruction(schema) }] },
    ])
  })

  it('inline goes to the latest user message, turning string content into parts; inputs are not mutated', () => {
    const messages = [
      { role: 'user' as const, content: 'first' },
      { role: 'assistant' as const, content: 'a' },
      { role: 'user' as const, content: 'second' },
    ]
    const out = injectSchema(messages, 'inline', schema)
    expect(out[2]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'second' },
        { type: 'text', text: inlineSchemaInstruction(schema) },
      ],
    })
    expect(out[0]).toBe(messages[0])
    expect(messages[2]!.content).toBe('second')
    expect(injectSchema(messages, 'native', schema)).toBe(messages)
  })
})
