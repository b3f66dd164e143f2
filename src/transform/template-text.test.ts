import { describe, expect, it } from 'vitest'
import { listFixtures, loadFixture } from '../../test/fixtures/index.ts'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import type { Span } from '../model/index.ts'
import { eachJsonString, textsInsideTemplate, withoutIntroduction } from './template-text.ts'
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

describe('textsInsideTemplate', () => {
  const TASK = 'What is the capital of France?'

  it("finds the user's input as a field of the first prompt's template, in an attribute's JSON", () => {
    const agent = agentSpan({ 'input.value': JSON.stringify({ task: TASK, context: 'geography quiz' }) })
    const input = `Current Task: ${TASK}\n\nThis is the expected criteria for your final answer: a city.`
    expect(textsInsideTemplate(agent, { input })).toEqual({ input: TASK })
  })

  it('finds a field on a line of its own', () => {
    const agent = agentSpan({ 'agent.input': TASK })
    expect(textsInsideTemplate(agent, { input: `Answer the question below.\n${TASK}\nBe brief.` })).toEqual({
      input: TASK,
    })
  })

  it('takes no phrase of a one-line message without a label for a field', () => {
    const agent = agentSpan({ 'agent.input': TASK })
    expect(textsInsideTemplate(agent, { input: `Please tell me ${TASK} Thanks a lot.` })).toEqual({})
    expect(textsInsideTemplate(agent, { input: `${TASK} Thanks a lot.` })).toEqual({})
  })

  it('finds instructions inside the system text anywhere, the longest recorded one', () => {
    const backstory = 'You research capitals of countries.'
    const agent = agentSpan({
      'crew.agent': JSON.stringify({ role: 'Researcher', backstory, goal: 'capitals' }),
      'agent.short': 'capitals of countries',
    })
    const system = `You are Researcher. ${backstory}\nYour personal goal is: capitals`
    expect(textsInsideTemplate(agent, { system })).toEqual({ system: backstory })
  })
})

describe('eachJsonString', () => {
  const strings = (text: string) => {
    const seen: string[] = []
    eachJsonString(text, (value) => seen.push(value))
    return seen
  }
  /** What the look gave before it scanned: the strings of the parsed object, two levels of objects down. */
  const parsedStrings = (text: string) => {
    const seen: string[] = []
    const walk = (value: unknown, depth: number) => {
      if (typeof value === 'string') {
        if (value.length >= 12) seen.push(value)
      } else if (value !== null && typeof value === 'object' && !Array.isArray(value) && depth <= 2) {
        for (const key in value) walk((value as Record<string, unknown>)[key], depth + 1)
      }
    }
    walk(JSON.parse(text), 1)
    return seen
  }

  it('gives the string values of the object and of its objects, not keys, arrays or deeper objects', () => {
    const text = JSON.stringify({
      'a long key that is not a value': 'the first long value',
      short: 'too short',
      inner: { text: 'a value one level down', deeper: { text: 'a value two levels down' } },
      list: ['a string inside a list', { text: 'an object inside a list' }],
      after: 'a value after the list',
    })
    expect(strings(text)).toEqual([
      'the first long value',
      'a value one level down',
      'a value after the list',
    ])
    expect(strings(text)).toEqual(parsedStrings(text))
  })

  it('unescapes what it gives, and reads quotes and backslashes inside strings as text', () => {
    const text = JSON.stringify({
      a: 'line one\nline "two" \\ done',
      b: 'ends with a backslash \\',
      c: 'caf\u00e9 \u2014 after the escapes',
    })
    expect(strings(text)).toEqual(parsedStrings(text))
    expect(strings('{"a": "escaped \\u00e9 text here", "b": "bad escape \\q inside it"}')).toEqual([
      'escaped é text here',
    ])
  })

  it('gives the strings before the fault of a value cut short, and nothing after the object', () => {
    expect(strings('{"a": "a complete first value", "b": "a value cut sh')).toEqual([
      'a complete first value',
    ])
    expect(strings('{"a": "a value inside the object"} "a string after it ends"')).toEqual([
      'a value inside the object',
    ])
  })

  it('never throws on text that is not JSON', () => {
    for (const text of ['{', '{{{{[[[', '{"a": [ "an array never closed', '{"a": "\\\\\\"}', '{]}}"x"'])
      expect(() => strings(text)).not.toThrow()
    expect(strings(`{"a": "${'\\'.repeat(10_001)}"}`)).toEqual([])
  })

  it("gives what parsing gives on every fixture's JSON object attributes", () => {
    let compared = 0
    for (const entry of listFixtures()) {
      for (const span of decodeOtlpTraces(loadFixture(entry).proto, 'otlp_proto')) {
        for (const value of Object.values(span.attributes)) {
          if (typeof value !== 'string' || value.charCodeAt(0) !== 123) continue
          let parsed: string[]
          try {
            parsed = parsedStrings(value)
          } catch {
            continue
          }
          expect(strings(value)).toEqual(parsed)
          compared++
        }
      }
    }
    expect(compared).toBeGreaterThan(100)
  })
})
