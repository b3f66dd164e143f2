import { describe, expect, it } from 'vitest'
import { compilePattern, literalPrefix, MAX_PATTERN_NAME_CHARS, patternProblem } from './safe-pattern.ts'

describe('span-name patterns', () => {
  it.each(['^runAgent ', 'tool', '^(runTool|useTool) .+$', '^agent\\.[a-z]{1,8}$', '^step-\\d+$', 'a?b?c?'])(
    'accepts %s',
    (pattern) => {
      expect(patternProblem(pattern)).toBeUndefined()
    },
  )

  it.each([
    ['(a+)+$', 'backtrack catastrophically'],
    ['(a|aa)*b', 'backtrack catastrophically'],
    ['((ab)*c)+', 'backtrack catastrophically'],
    ['.*a.*b', 'at most one unbounded quantifier'],
    ['a{1,100}b{2,}', 'at most one unbounded quantifier'],
    ['(a)\\1', 'backreferences'],
    ['(?=a)b', 'lookaround'],
    ['([a-z', 'not a valid regular expression'],
  ])('refuses %s', (pattern, problem) => {
    expect(patternProblem(pattern)).toContain(problem)
  })

  it('refuses to compile a refused pattern, naming it', () => {
    expect(() => compilePattern('(x+)+y')).toThrow('span-name pattern "(x+)+y"')
  })

  it('never matches names longer than the bound (so matching stays cheap)', () => {
    const test = compilePattern('^a')
    expect(test('a'.repeat(MAX_PATTERN_NAME_CHARS))).toBe(true)
    expect(test('a'.repeat(MAX_PATTERN_NAME_CHARS + 1))).toBe(false)
  })
})

describe('literal prefixes of span-name patterns (a first test of names)', () => {
  it.each([
    ['^langchain4j\\.(aiservices|tools)\\.', 'langchain4j.'],
    ['^completion ', 'completion '],
    ['^foo(bar|baz)', 'foo'],
    ['^ab?c', 'a'],
    ['^chat\\d+', 'chat'],
    ['^a|b', ''],
    ['^[(]x|y', ''],
    ['^\\d+', ''],
    ['agent', ''],
  ])('%s starts every match with %j', (pattern, prefix) => {
    expect(literalPrefix(pattern)).toBe(prefix)
  })

  it('never turns away a name the pattern matches', () => {
    const names = [
      'langchain4j.tools.x',
      'completion gpt',
      'foobar',
      'ac',
      'abc',
      'b',
      'y',
      '7',
      'chat12',
      'xagent',
    ]
    for (const pattern of [
      '^langchain4j\\.(aiservices|tools)\\.',
      '^completion ',
      '^foo(bar|baz)',
      '^ab?c',
      '^a|b',
      '^[(]x|y',
      '^chat\\d+',
    ])
      for (const name of names)
        if (compilePattern(pattern)(name)) expect(name.startsWith(literalPrefix(pattern))).toBe(true)
  })
})
