import { afterEach, describe, expect, it } from 'vitest'
import type { Span } from '../../model/index.ts'
import { extractAgentRuns } from '../index.ts'
import { toolInvocations } from '../testing/output-steps.ts'
import { span } from '../testing/span-builder.ts'
import { profileSchema, useProfiles } from './index.ts'

afterEach(() => useProfiles([]))

/** A program's own vocabulary: a tool span records its call as one JSON value, the arguments a path in it. */
const profile = profileSchema.parse({
  name: 'desk-bot',
  owns: { scope: 'desk-bot' },
  roles: { agent: { spanName: 'loop' }, tool: { spanName: 'act' } },
  fields: {
    agent: {
      input: { attribute: 'desk.question', shape: 'text' },
      output: { attribute: 'desk.reply', shape: 'text' },
    },
    tool: {
      id: 'desk.call',
      name: 'desk.tool',
      arguments: { attribute: 'desk.act', path: '$.args' },
      result: 'desk.outcome',
    },
  },
})

const ofDesk = (s: Span): Span => ({ ...s, scope: { name: 'desk-bot' } })

describe('values a profile reads through a JSON path', () => {
  it('are the run’s own: a change to one extraction’s run is not seen by the next', () => {
    useProfiles([profile])
    const spans = [
      ofDesk(
        span({
          id: 'a',
          name: 'loop',
          end: 100,
          attributes: { 'desk.question': 'Where is A17?', 'desk.reply': 'Shipped.' },
        }),
      ),
      ofDesk(
        span({
          id: 't',
          parent: 'a',
          name: 'act',
          start: 10,
          attributes: {
            'desk.call': 'c1',
            'desk.tool': 'lookup',
            'desk.act': JSON.stringify({ args: { order: { id: 'A17' } }, retries: 0 }),
            'desk.outcome': 'shipped',
          },
        }),
      ),
    ]
    const [first] = extractAgentRuns(spans)
    const [call] = toolInvocations(first!)
    expect(call!.args).toEqual({ order: { id: 'A17' } })
    ;(call!.args as { order: { id: string } }).order.id = 'changed'
    const [second] = extractAgentRuns(spans)
    expect(toolInvocations(second!)[0]!.args).toEqual({ order: { id: 'A17' } })
  })
})
