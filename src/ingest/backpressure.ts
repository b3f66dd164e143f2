/** What backpressure looks at. */
export interface IngestLoad {
  /** Spans buffered in the assembler. */
  bufferedSpans: number
  /** Released traces waiting for or in scoring and delivery. */
  queuedTraces: number
}

/** The limits at which reading pauses; it resumes below 80% of both. */
interface BackpressureLimits {
  pauseAtBufferedSpans: number
  maxQueuedTraces: number
}

/**
 * Whether reading should be paused, given whether it is now: pause when the buffer or the
 * downstream queue is full, resume when both fell below 80% of their limit (the gap keeps a
 * consumer from flapping between the two).
 */
export function shouldPause(paused: boolean, load: IngestLoad, limits: BackpressureLimits): boolean {
  if (!paused)
    return load.bufferedSpans >= limits.pauseAtBufferedSpans || load.queuedTraces >= limits.maxQueuedTraces
  return !(
    load.bufferedSpans < limits.pauseAtBufferedSpans * 0.8 && load.queuedTraces < limits.maxQueuedTraces * 0.8
  )
}
