import { describe, expect, it } from 'vitest'
import { evaluateJsonPath, jsonPathProblem, MAX_PATH_RESULTS, parseJsonPath } from './json-path.ts'

const read = (path: string, value: unknown) => evaluateJsonPath(parseJsonPath(path), value)

describe('profile JSON paths', () => {
  const body = {
    sent: { messages: [{ role: 'user', content: 'hi' }] },
    'a.b': { c: 1 },
    list: [{ x: 1 }, { x: 2 }],
  }

  it('reads keys, quoted keys, indexes and wildcards', () => {
    expect(read('$', body)).toBe(body)
    expect(read('$.sent.messages[0].content', body)).toBe('hi')
    expect(read("$['a.b'].c", body)).toBe(1)
    expect(read('$.list[*].x', body)).toEqual([1, 2])
    expect(read('$.list.*', body)).toEqual([{ x: 1 }, { x: 2 }])
  })

  it('gives undefined for what is absent, and never reads inherited keys', () => {
    expect(read('$.missing.deeper', body)).toBeUndefined()
    expect(read('$.list[5]', body)).toBeUndefined()
    expect(read('$.constructor', {})).toBeUndefined()
    expect(read('$.list[*].y', body)).toBeUndefined()
  })

  it.each([
    ['sent.messages', 'must start with $'],
    ['$.a[?(@.x)]', 'cannot read'],
    ['$..a', 'cannot read'],
    ['$.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q', 'more than 16 steps'],
  ])('refuses %s, saying why', (path, problem) => {
    expect(jsonPathProblem(path)).toContain(problem)
  })

  it('yields at most a bounded number of values from wildcards', () => {
    const wide = Array.from({ length: 50 }, () => Array.from({ length: 50 }, (_, i) => i))
    const values = read('$[*][*]', wide) as unknown[]
    expect(values).toHaveLength(MAX_PATH_RESULTS)
  })
})
