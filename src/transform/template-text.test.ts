import { describe, expect, it } from 'vitest'
import type { Span } from '../model/index.ts'
import { withoutIntroduction } from './template-text.ts'
import { span } from './testing/span-builder.ts'

const agentSpan = (attributes: Span['attributes']) =>
  span({ id: 'a', name: 'invoke_agent support', attributes })

const INTRO = 'You are an agent. Your internal name is "support". The description about you is "Helps."'

describe('withoutIntroduction', () => {
  it('drops a later paragraph quoting the recorded name and description', () => {
    const span = agentSpan({ 'gen_ai.agent.description': 'Helps.' })
    expect(withoutIntroduction(span, [`Be brief.\n\n${INTRO}`], 'support')).toEqual(['Be brief.'])
  })

  it('keeps a paragraph that quotes the name but not the recorded description', () => {
    const span = agentSpan({ 'gen_ai.agent.description': 'Answers billing questions.' })
    expect(withoutIntroduction(span, [`Be brief.\n\n${INTRO}`], 'support')).toBeUndefined()
  })

  it('drops a paragraph quoting the name when no description is recorded', () => {
    const text = 'Be brief.\n\nYou are an agent. Your internal name is "support".'
    expect(withoutIntroduction(agentSpan({}), [text], 'support')).toEqual(['Be brief.'])
  })

  it('never drops the first paragraph, nor anything without a name', () => {
    expect(withoutIntroduction(agentSpan({}), ['Your name is "support".'], 'support')).toBeUndefined()
    expect(withoutIntroduction(agentSpan({}), [`Be brief.\n\n${INTRO}`], undefined)).toBeUndefined()
  })
})
