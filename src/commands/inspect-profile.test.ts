import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { main } from '../cli.ts'
import { useProfiles } from '../transform/profiles/index.ts'

const data = (name: string) => join(import.meta.dirname, '../../test/fixtures/data', name)
const profile = join(import.meta.dirname, '../transform/profiles/examples/hand-desk.json')

/** Runs the CLI, returning its exit code and what it printed. */
async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = []
  const err: string[] = []
  const log = vi.spyOn(console, 'log').mockImplementation((text: string) => void out.push(text))
  const error = vi.spyOn(console, 'error').mockImplementation((text: string) => void err.push(text))
  try {
    return { code: await main(args), out: out.join('\n'), err: err.join('\n') }
  } finally {
    log.mockRestore()
    error.mockRestore()
  }
}

afterEach(() => useProfiles([]))

describe('tracescore inspect with producer profiles', () => {
  it('--profile shows the runs, where each field was read from, and what was left unread', async () => {
    const { code, out } = await cli('inspect', data('hand-desk/tool-error.pb'), '--profile', profile)
    expect(code).toBe(0)
    expect(out).toContain('run 1: support-agent')
    expect(out).toContain('tool.arguments <- desk.params as value (1x)')
    expect(out).toContain('model.prompt <- desk.exchange $.sent as provider-request')
    expect(out).toContain('attributes no field read: desk.model')
  })

  it('refuses a bad profile file with exit 2, naming the key', async () => {
    const bad = join(tmpdir(), `p28-bad-profile-${process.pid}.json`)
    writeFileSync(bad, JSON.stringify({ name: 'x', owns: { spanNamePattern: '(a|ab)*c' } }))
    const { code, err } = await cli('inspect', data('hand-desk/tool-error.pb'), '--profile', bad)
    expect(code).toBe(2)
    expect(err).toContain('0.owns.spanNamePattern: a quantifier on a group')
  })

  it('--suggest prints a starting profile as JSON, and says when there is nothing to suggest', async () => {
    const suggested = await cli('inspect', '--suggest', data('hand-desk/single-turn.pb'))
    expect(suggested.code).toBe(0)
    expect(JSON.parse(suggested.out)).toMatchObject({
      owns: { scope: 'desk-bot' },
      roles: { model: { spanName: 'think' } },
    })
    const nothing = await cli('inspect', '--suggest', data('spring-ai/single-turn.pb'))
    expect(nothing.out).toBe('')
    expect(nothing.err).toContain('nothing to suggest')
  })
})
