import { Writable } from 'node:stream'
import { createLogger, type Logger } from '../logger.ts'

/** A logger at `info` whose JSON lines are parsed into `lines`, for tests of what gets logged. */
export function captureLogs(): { lines: Record<string, unknown>[]; logger: Logger } {
  const lines: Record<string, unknown>[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).trim().split('\n')) lines.push(JSON.parse(line))
      done()
    },
  })
  return { lines, logger: createLogger('info', destination) }
}
