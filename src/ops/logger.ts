import { type Logger, pino } from 'pino'

export type { Logger }

/**
 * An error as logged: its type, message and fields, and its stack trace (causes included) only
 * at level debug; at other levels a trace adds noise and install paths, not information.
 */
function errorSerializer(withStack: boolean) {
  return (error: unknown) => {
    if (!(error instanceof Error)) return error
    const serialized = pino.stdSerializers.err(error) as Record<string, unknown>
    if (!withStack) delete serialized.stack
    return serialized
  }
}

/** Structured JSON logger on stderr (stdout stays free for data such as JSON-lines scores). */
export function createLogger(
  level: string = 'info',
  destination: pino.DestinationStream = pino.destination(2),
): Logger {
  const err = errorSerializer(level === 'debug')
  return pino({ level, base: { service: 'tracescore' }, serializers: { err, error: err } }, destination)
}

/** A logger that drops everything (tests, library use). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' })
}
