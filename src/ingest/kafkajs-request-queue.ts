import { createRequire } from 'node:module'

/** kafkajs's `RequestQueue` (one per broker connection), the class the fix below replaces a method of. */
interface RequestQueue {
  pending: unknown[]
  throttledUntil: number
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null
  checkPendingRequests(): void
  scheduleCheckPendingRequests(): void
}

/** kafkajs's own interval for re-checking requests that wait for an in-flight slot. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10

/** What the stock method computes its delay from; a kafkajs release without it has other code. */
const STOCK_DELAY = 'let scheduleAt = this.throttledUntil - Date.now()'

/**
 * kafkajs 2.2.4's `scheduleCheckPendingRequests`, without its idle timer loop. The stock method
 * always re-arms a timer, with a negative delay (`throttledUntil` is -1 when not throttled) when
 * nothing is pending: Node runs it after 1 ms, it re-arms itself, and so on forever, on every
 * connection (tulios/kafkajs#1704; about 6% of a core for an idle consumer here), and Node 24
 * prints a `TimeoutNegativeWarning` for it (#1751). This one arms a timer only when a request
 * waits or a throttle ends, with the stock delays: a pending request is always re-checked, so the
 * lost wake-up that #1532 fixed cannot come back.
 */
function scheduleCheckPendingRequests(this: RequestQueue): void {
  if (this.throttleCheckTimeoutId) return
  const untilUnthrottled = this.throttledUntil - Date.now()
  if (this.pending.length === 0 && untilUnthrottled <= 0) return
  const delay = untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS
  this.throttleCheckTimeoutId = setTimeout(() => {
    this.throttleCheckTimeoutId = null
    this.checkPendingRequests()
  }, delay)
}

let fixed: boolean | undefined

/**
 * Replaces kafkajs's `RequestQueue.prototype.scheduleCheckPendingRequests` (see
 * {@link scheduleCheckPendingRequests}) in the kafkajs this package resolves, once per process.
 * Only the release whose method is known is changed: true when the fix is in place.
 * Called by `prepareKafkajs` (kafka-client.ts) before clients are made.
 */
export function fixKafkajsRequestQueue(): boolean {
  if (fixed !== undefined) return fixed
  const proto = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js')
    .prototype as RequestQueue
  fixed = proto.scheduleCheckPendingRequests.toString().includes(STOCK_DELAY)
  if (fixed) proto.scheduleCheckPendingRequests = scheduleCheckPendingRequests
  return fixed
}
