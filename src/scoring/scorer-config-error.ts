/** A scorer that cannot run as defined (no generateScore, a prompt step without model or instructions, ...). */
export class ScorerConfigError extends Error {
  override readonly name = 'ScorerConfigError'
  /** Mastra's error id, e.g. `MASTR_SCORER_FAILED_TO_RUN_MISSING_GENERATE_SCORE`. */
  readonly id: string
  readonly domain = 'SCORER'
  readonly category = 'USER'
  readonly details: Record<string, string>
  constructor(id: string, message: string, details: Record<string, string> = {}) {
    super(message)
    this.id = id
    this.details = details
  }
}
