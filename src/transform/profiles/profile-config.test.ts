import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { loadFixture } from '../../../test/fixtures/index.ts'
import { ConfigError, resolveConfig } from '../../config/index.ts'
import { decodeOtlpTraces } from '../../ingest/decode/index.ts'
import { isRoleKey } from '../../ingest/decode/role-attributes.ts'
import { scanOtlpProto } from '../../ingest/decode/scan-proto.ts'
import { extractAgentRuns, isAgentRunSpan } from '../index.ts'
import { everySpanProfile } from '../testing/user-profiles.ts'
import { useProfiles } from './index.ts'

const handDesk = JSON.parse(readFileSync(new URL('./examples/hand-desk.json', import.meta.url), 'utf8'))

function configError(conventions: unknown): ConfigError {
  try {
    resolveConfig({ conventions }, {})
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error('expected a ConfigError')
}

afterEach(() => useProfiles([]))

describe('the conventions key of the configuration', () => {
  it('takes the documented profile and defaults to none', () => {
    expect(resolveConfig({}, {}).conventions).toEqual([])
    expect(resolveConfig({ conventions: [handDesk] }, {}).conventions[0]!.name).toBe('desk-bot')
  })

  it.each([
    [
      'a profile that says which spans it owns nowhere',
      [{ name: 'x', roles: { agent: {} } }],
      'conventions.0.owns: required',
    ],
    [
      'a bad JSON path',
      [{ ...handDesk, fields: { tool: { arguments: { attribute: 'a', path: '$.a[?(@.b)]' } } } }],
      'conventions.0.fields.tool.arguments.path: JSON path',
    ],
    [
      'a regular expression that backtracks',
      [{ name: 'x', owns: { spanNamePattern: '^(a+)+$' } }],
      'conventions.0.owns.spanNamePattern: a quantifier on a group',
    ],
    [
      'an unknown message shape',
      [{ ...handDesk, fields: { model: { prompt: { attribute: 'p', shape: 'yaml' } } } }],
      'conventions.0.fields.model.prompt',
    ],
    [
      'an unknown field',
      [{ ...handDesk, fields: { tool: { args: 'a' } } }],
      'unknown key conventions.0.fields.tool.args',
    ],
    ['an unknown built-in to extend', [{ name: 'x', extends: 'nope' }], 'conventions.0.extends'],
  ])('refuses %s, naming the key (exit 2)', (_label, conventions, expected) => {
    const error = configError(conventions)
    expect(error.exitCode).toBe(2)
    expect(error.message).toContain(expected)
  })

  it('lets the ingest path see the attributes a profile matches on', () => {
    expect(isRoleKey('desk.kind')).toBe(false)
    useProfiles([{ name: 'k', owns: { exists: ['desk.kind'] } }])
    expect(isRoleKey('desk.kind')).toBe(true)
  })
})

describe('a profile with a field whose attribute is absent', () => {
  it('leaves the field unread and the rest of the run as it was', () => {
    const spans = decodeOtlpTraces(loadFixture('hand-desk/single-turn').proto, 'otlp_proto')
    useProfiles([
      {
        ...handDesk,
        fields: { ...handDesk.fields, agent: { ...handDesk.fields.agent, name: 'desk.nobody' } },
      },
    ])
    const [run] = extractAgentRuns(spans)
    expect(run!.agentName).not.toBe('support-agent')
    expect(run!.output[0]!.content.content).toBe(
      loadFixture('hand-desk/single-turn').truth.runs[0]!.finalText,
    )
  })
})

describe('a profile that owns every span', () => {
  it('gives runs of the spans it owns, read by the generic convention, and nothing worse', () => {
    const spans = decodeOtlpTraces(loadFixture('hand-loop/multi-tool-text').proto, 'otlp_proto')
    useProfiles([everySpanProfile()])
    const runs = extractAgentRuns(spans)
    const ids = new Set(spans.map((span) => span.spanId))
    expect(runs.length).toBeGreaterThan(1)
    expect(runs.every((run) => ids.has(run.spanId) && run.convention === 'generic')).toBe(true)
  })
})

describe('the ingest path with a profile that owns spans by scope and name', () => {
  /** The run spans the ingest path would see in a file: agent spans among the candidates' role views. */
  function runSpansSeen(proto: Uint8Array): string[] {
    const scanned = scanOtlpProto(proto)
    const names: string[] = []
    for (let i = 0; i < scanned.length; i++) {
      const view = scanned.candidate(i)
      if (view && isAgentRunSpan(view)) names.push(view.name)
    }
    return names
  }

  it('sees no candidate without the profile, and the run spans with it', () => {
    const proto = loadFixture('hand-desk/nested-agents').proto
    expect(runSpansSeen(proto)).toEqual([])
    useProfiles([handDesk])
    expect(runSpansSeen(proto)).toEqual(['loop', 'loop'])
  })

  it('by span name alone, when the profile names no scope', () => {
    const proto = loadFixture('hand-desk/single-turn').proto
    const { owns: _owns, ...rest } = handDesk
    useProfiles([{ ...rest, owns: { spanNamePattern: '^(serve|loop|think|act)$' } }])
    expect(runSpansSeen(proto)).toEqual(['loop'])
  })
})
