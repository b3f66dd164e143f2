import { describe, expect, it } from 'vitest'
import { createLogger } from './logger.ts'

/** Logs one error at `level` and returns the parsed line. */
function logged(level: string, key: 'err' | 'error'): Record<string, any> {
  const lines: string[] = []
  const logger = createLogger(level, { write: (line: string) => lines.push(line) })
  logger.error({ [key]: new Error('delivery failed', { cause: new Error('socket hang up') }) }, 'oops')
  return JSON.parse(lines[0]!)
}

describe('createLogger', () => {
  it('logs errors with type and message but without stack traces below level debug', () => {
    for (const key of ['err', 'error'] as const) {
      const line = logged('info', key)
      expect(line[key]).toMatchObject({ type: 'Error', message: 'delivery failed: socket hang up' })
      expect(line[key].stack).toBeUndefined()
    }
  })

  it('keeps the stack trace, causes included, at level debug', () => {
    const line = logged('debug', 'err')
    expect(line.err.stack).toContain('Error: delivery failed')
    expect(line.err.stack).toContain('caused by: Error: socket hang up')
  })
})
