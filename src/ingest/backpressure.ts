/** What backpressure looks at. */
export interface IngestLoad {
  /** Spans buffered in the assembler. */
  bufferedSpans: number
  /** Their bytes (as the assembler counts them for its byte cap). */
  bufferedBytes: number
  /** Released traces waiting for or in scoring and delivery. */
  queuedTraces: number
}

/** The limits at which reading pauses; it resumes below 80% of each. */
export interface BackpressureLimits {
  pauseAtBufferedSpans: number
  pauseAtBufferedBytes: number
  maxQueuedTraces: number
}

/**
 * Whether reading should be paused, given whether it is now: pause when the buffer (its spans or
 * its bytes) or the downstream queue is full, resume when all fell below 80% of their limit (the
 * gap keeps a consumer from flapping between the two).
 */
export function shouldPause(paused: boolean, load: IngestLoad, limits: BackpressureLimits): boolean {
  const share = paused ? 0.8 : 1
  const full =
    load.bufferedSpans >= limits.pauseAtBufferedSpans * share ||
    load.bufferedBytes >= limits.pauseAtBufferedBytes * share ||
    load.queuedTraces >= limits.maxQueuedTraces * share
  return full
}

/**
 * True when the buffer alone (its spans or its bytes, not the downstream queue) keeps paused
 * reading paused: no partition advances then, so the event-time watermark cannot move either.
 */
export function bufferHoldsReading(load: IngestLoad, limits: BackpressureLimits): boolean {
  return (
    load.bufferedSpans >= limits.pauseAtBufferedSpans * 0.8 ||
    load.bufferedBytes >= limits.pauseAtBufferedBytes * 0.8
  )
}
