import { ConfigError } from './config-error.ts'

/**
 * A URL as it may be shown in messages: user name and password replaced by `***`, so a rejected
 * value never puts a secret in a log.
 */
export function displayUrl(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, '$1***@')
}

/** Why `value` is not an acceptable http(s) endpoint, or undefined when it is. */
export function httpUrlProblem(value: string): string | undefined {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return `expected an http(s) URL, got ${displayUrl(value)}`
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `expected an http(s) URL, got ${displayUrl(value)}`
  }
  if (url.username !== '' || url.password !== '') {
    return (
      `a user name or password in the URL is not accepted (it would appear in logs and errors), got ${displayUrl(value)}; ` +
      'pass credentials as an API key or a header instead'
    )
  }
  return undefined
}

/** Checks an http(s) endpoint from the configuration or environment; throws a ConfigError naming `key`. */
export function checkHttpUrl(key: string, value: string): string {
  const problem = httpUrlProblem(value)
  if (problem) throw new ConfigError(`${key}: ${problem}`, [{ key, message: problem }])
  return value
}
