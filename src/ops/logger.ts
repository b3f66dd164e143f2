import { type Logger, pino } from 'pino'

export type { Logger }

/** Structured JSON logger on stderr (stdout stays free for data such as JSON-lines scores). */
export function createLogger(level: string = 'info'): Logger {
  return pino({ level, base: { service: 'tracescore' } }, pino.destination(2))
}

/** A logger that drops everything (tests, library use). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' })
}
