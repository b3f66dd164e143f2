import { describe, expect, it } from 'vitest'
import { mergeJudgeConfig, resolveMaxProcessorRetries } from './judge-config.ts'
import type { Processor } from './processor.ts'

const p = (id: string): Processor => ({ id })

describe('mergeJudgeConfig', () => {
  it('step fields replace scorer fields one by one; undefined step fields inherit', () => {
    const merged = mergeJudgeConfig(
      {
        model: 'openai/a',
        instructions: 'scorer',
        jsonPromptInjection: 'inline',
        maxProcessorRetries: 2,
        errorProcessors: [p('s1'), p('s2')],
      },
      { model: 'openai/b', errorProcessors: [p('step')], maxProcessorRetries: undefined },
    )
    expect(merged).toEqual({
      model: 'openai/b',
      instructions: 'scorer',
      jsonPromptInjection: 'inline',
      maxProcessorRetries: 2,
      errorProcessors: [p('step')],
    })
  })

  it('works without either side', () => {
    expect(mergeJudgeConfig(undefined, { instructions: 'x' })).toEqual({ instructions: 'x' })
    expect(mergeJudgeConfig({ instructions: 'y' }, undefined)).toEqual({ instructions: 'y' })
  })
})

describe('resolveMaxProcessorRetries', () => {
  it('explicit value, else 10 with error processors (seed), else 0', () => {
    expect(resolveMaxProcessorRetries({ maxProcessorRetries: 4, errorProcessors: [p('e')] })).toBe(4)
    expect(resolveMaxProcessorRetries({ errorProcessors: [p('e')] })).toBe(10)
    expect(resolveMaxProcessorRetries({ errorProcessors: [] })).toBe(0)
    expect(resolveMaxProcessorRetries({ inputProcessors: [p('i')] })).toBe(0)
  })
})
