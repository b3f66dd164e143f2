import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.ts'

// The README's main command, as a user runs it, on the real local broker.
describe('tracescore demo', () => {
  it('produces recorded agent traffic, scores every trace and prints the summary', async () => {
    const result = await runCli(['demo', '--runs', '10'], { timeoutMs: 240_000 })
    expect(result.stderr).not.toMatch(/Error|Warning/)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('scripted LLM judge (not a real model)')
    expect(result.stdout).toMatch(/produced 10 OTLP records \(10 traces/)
    const header = result.stdout.split('\n').find((l) => l.startsWith('agent '))!
    expect(header.split(/\s+/)).toEqual(['agent', 'scorer', 'scored', 'mean', 'min', 'max', 'failed'])
    const rows = result.stdout.split('\n').filter((l) => /\s(answered|helpfulness|tool-success)\s/.test(l))
    expect(new Set(rows.map((r) => r.trim().split(/\s+/)[1]))).toEqual(
      new Set(['answered', 'helpfulness', 'tool-success']),
    )
    expect(result.stdout).toMatch(/\n(\d+) scores for 10 traces; 0 failed scorings\./)
  })
})
