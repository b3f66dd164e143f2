import { describe, expect, it } from 'vitest'
import { parsePythonLiteral } from './python-literal.ts'

describe('parsePythonLiteral', () => {
  it('reads what repr() writes', () => {
    expect(
      parsePythonLiteral(
        `{'orderId': 'A17', "it's": 20.0, 'ok': True, 'none': None, 'list': [1, (2, 3)], 'e': -1e3}`,
      ),
    ).toEqual({
      orderId: 'A17',
      "it's": 20,
      ok: true,
      none: null,
      list: [1, [2, 3]],
      e: -1000,
    })
    expect(parsePythonLiteral(String.raw`'line\nnext \'quoted\' \u00e9 \x41'`)).toBe(
      "line\nnext 'quoted' é A",
    )
  })

  it('is undefined for anything that is not one literal', () => {
    for (const text of [
      'Observation: done',
      "{'a': 1} trailing",
      "{'a' 1}",
      "'open",
      'HumanMessage(content=1)',
      '',
    ]) {
      expect(parsePythonLiteral(text), text).toBeUndefined()
    }
  })

  it('stops at a bounded depth instead of overflowing the stack', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    expect(parsePythonLiteral(deep)).toBeUndefined()
  })

  it('keeps a key __proto__ as data', () => {
    const value = parsePythonLiteral(`{'__proto__': {'polluted': True}}`) as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.keys(value)).toEqual(['__proto__'])
  })
})
