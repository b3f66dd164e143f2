import { describe, expect, it } from 'vitest'
import type { Attributes } from '../model/index.ts'
import { Notes } from './notes.ts'
import {
  hasAttribute,
  indexed,
  ownAttribute,
  readJson,
  readPrefixed,
  readString,
  setOwn,
} from './read-attribute.ts'

describe('indexed', () => {
  it('groups `prefix.<i>.rest` keys by index, in index order whatever the order of the keys', () => {
    const attributes: Attributes = {
      'llm.input_messages.10.message.role': 'user',
      'llm.input_messages.2.message.role': 'assistant',
      'llm.input_messages.2.message.content': 'b',
      'llm.input_messages.10.message.content': 'c',
      'llm.input_messages.0.message.role': 'system',
      'llm.input_messages.0.message.content': 'a',
    }
    const groups = indexed(attributes, 'llm.input_messages')
    expect([...groups.keys()]).toEqual([0, 2, 10])
    expect([...groups.values()].map((group) => ({ ...group }))).toEqual([
      { 'message.role': 'system', 'message.content': 'a' },
      { 'message.role': 'assistant', 'message.content': 'b' },
      { 'message.role': 'user', 'message.content': 'c' },
    ])
  })

  it('keeps keys in order when they come in order, and skips keys without an index or a rest', () => {
    const attributes: Attributes = {
      'gen_ai.prompt.0.role': 'user',
      'gen_ai.prompt.0.content': 'hi',
      'gen_ai.prompt.1.role': 'assistant',
      'gen_ai.prompt.x.role': 'user',
      'gen_ai.prompt.2': 'no rest',
      'gen_ai.prompt.1.5.role': 'user',
      'gen_ai.prompts.3.role': 'user',
      'other.0.role': 'user',
    }
    const groups = indexed(attributes, 'gen_ai.prompt')
    expect([...groups.keys()]).toEqual([0, 1])
    expect({ ...groups.get(1) }).toEqual({ role: 'assistant', '5.role': 'user' })
    expect(indexed({}, 'gen_ai.prompt').size).toBe(0)
  })

  it('reads an index of decimal digits only', () => {
    const attributes: Attributes = {
      'p..a': 1,
      'p.-1.a': 2,
      'p.1e1.a': 3,
      'p. 1.a': 4,
      'p.07.a': 5,
      'p.3x.a': 6,
    }
    expect([...indexed(attributes, 'p').entries()].map(([index, group]) => [index, { ...group }])).toEqual([
      [7, { a: 5 }],
    ])
  })

  it('keeps a `__proto__` rest as a key of a group without a prototype', () => {
    const attributes = JSON.parse('{"p.0.__proto__": "x", "p.0.role": "user"}') as Attributes
    const group = indexed(attributes, 'p').get(0)!
    expect(Object.getPrototypeOf(group)).toBeNull()
    expect(Object.keys(group)).toEqual(['__proto__', 'role'])
  })
})

describe('readPrefixed', () => {
  it('takes the keys under the prefix, without it, in order; `__proto__` stays a key', () => {
    const attributes = JSON.parse(
      '{"m.b": 1, "other": 2, "m.": 3, "m.__proto__": "p", "m.a.c": "x", "mm.z": 4}',
    ) as Attributes
    const out = readPrefixed(attributes, 'm')
    expect(Object.keys(out)).toEqual(['b', '__proto__', 'a.c'])
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toBe('p')
  })
})

describe('ownAttribute', () => {
  it("gives a span's own attributes, never what every object inherits", () => {
    const attributes: Attributes = {
      text: 'a',
      count: 0,
      flag: false,
      empty: '',
      none: null,
      list: [1],
      map: {},
    }
    for (const key of Object.keys(attributes)) {
      expect(ownAttribute(attributes, key)).toBe(attributes[key])
      expect(hasAttribute(attributes, key)).toBe(true)
    }
    for (const key of ['missing', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__']) {
      expect(ownAttribute(attributes, key)).toBeUndefined()
      expect(hasAttribute(attributes, key)).toBe(false)
      expect(readString(attributes, key)).toBeUndefined()
      expect(readJson(attributes, key, new Notes(), 's')).toBeUndefined()
    }
  })

  it('gives attributes named like inherited members when the span has them', () => {
    const attributes: Attributes = { constructor: 'c', toString: { nested: 1 } }
    setOwn(attributes, '__proto__', null)
    setOwn(attributes, 'valueOf', ['v'])
    expect(ownAttribute(attributes, 'constructor')).toBe('c')
    expect(ownAttribute(attributes, 'toString')).toEqual({ nested: 1 })
    expect(ownAttribute(attributes, '__proto__')).toBeNull()
    expect(hasAttribute(attributes, '__proto__')).toBe(true)
    expect(ownAttribute(attributes, 'valueOf')).toEqual(['v'])
    expect(readString(attributes, 'constructor')).toBe('c')
  })
})
