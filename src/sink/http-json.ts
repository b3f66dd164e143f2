/** An HTTP answer outside 2xx; `status` drives the retry decision (see `isRetryableError`). */
export class HttpStatusError extends Error {
  override readonly name = 'HttpStatusError'
  /** The HTTP status code. */
  readonly status: number
  /** The start of the response body, for logs. */
  readonly body: string
  /** Overrides the status-based retry decision when set. */
  retryable?: boolean
  constructor(url: string, status: number, body: string) {
    super(`POST ${url} answered ${status}: ${body.slice(0, 300)}`)
    this.status = status
    this.body = body.slice(0, 2000)
  }
}

/** A JSON POST request. */
interface PostJsonRequest {
  url: string
  body: unknown
  headers?: Record<string, string>
  timeoutMs: number
}

/** POSTs a JSON body and returns the parsed JSON answer; throws `HttpStatusError` outside 2xx. */
export async function postJson({ url, body, headers = {}, timeoutMs }: PostJsonRequest): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  })
  const text = await response.text()
  if (!response.ok) throw new HttpStatusError(url, response.status, text)
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
