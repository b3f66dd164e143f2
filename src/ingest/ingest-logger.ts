/** The logging calls the ingest stage makes (pino's signature: context object, then message). */
export interface IngestLogger {
  info(context: object, message: string): void
  warn(context: object, message: string): void
  error(context: object, message: string): void
}

const write = (level: string) => (context: object, message: string) => {
  const fields: Record<string, unknown> = { ...context }
  const err = fields.err
  if (err instanceof Error) fields.err = { type: err.name, message: err.message }
  process.stderr.write(`${JSON.stringify({ level, time: Date.now(), msg: message, ...fields })}\n`)
}

/** Default logger: warnings and errors as JSON lines on stderr, info dropped. */
export const stderrLogger: IngestLogger = { info: () => {}, warn: write('warn'), error: write('error') }
