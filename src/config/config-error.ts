/** An invalid configuration: names the key and what is expected. The CLI exits with code 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  readonly exitCode = 2
  readonly issues: { key: string; message: string }[]
  constructor(message: string, issues: { key: string; message: string }[] = []) {
    super(message)
    this.issues = issues
  }
}
