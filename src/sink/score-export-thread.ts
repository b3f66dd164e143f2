import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { ScoreRecord } from '../model/index.ts'
import type { ExportFailure, ExportReply, ExportRequest, ExportThreadSettings } from './otlp-export-worker.ts'

/**
 * The OTLP export on a worker thread (`otlp-export-worker.ts`), so that building, hashing,
 * serializing and sending score spans do not take the pipeline's thread. `export(records)` is one
 * attempt: it resolves when the backend acknowledged the batch and rejects with the exporter's
 * error. A worker that dies (throws, exits, is terminated) is replaced at once and the batches it
 * had in flight are sent again on the new one, each still settling once; a batch in flight on
 * `maxWorkerDeaths` workers that died rejects instead, so a record that kills the thread fails
 * its delivery rather than every worker after it.
 */
export interface ScoreExportThread {
  /** One attempt; the records are cloned to the worker as they are (see `plainScoreRecord`). */
  export(records: ScoreRecord[]): Promise<void>
  /** Waits for the batches in flight, then terminates the worker; later exports reject. */
  close(): Promise<void>
}

/** Options for tests. */
export interface ScoreExportThreadOptions {
  /** The worker module (default `otlp-export-worker` beside this file, `.ts` or `.js` as this one). */
  workerUrl?: URL
  /** Called with each worker started, the replacements included. */
  onWorker?: (worker: Worker) => void
  /** Deaths a batch in flight survives before it rejects (default 3). */
  maxWorkerDeaths?: number
}

/** The worker module beside this one: `.ts` when run from the sources (tsx, vitest), `.js` from `dist/`. */
const defaultWorkerUrl = new URL(
  `./otlp-export-worker${extname(fileURLToPath(import.meta.url))}`,
  import.meta.url,
)

interface InFlight {
  records: ScoreRecord[]
  deaths: number
  resolve: () => void
  reject: (error: Error) => void
}

/**
 * Starts the export thread (now, so that its start-up is not paid by the first export; after a
 * death with nothing in flight, the next export starts the next one).
 */
export function startScoreExportThread(
  settings: ExportThreadSettings,
  { workerUrl = defaultWorkerUrl, onWorker, maxWorkerDeaths = 3 }: ScoreExportThreadOptions = {},
): ScoreExportThread {
  const inFlight = new Map<number, InFlight>()
  let nextId = 0
  let worker: Worker | undefined
  let closing = false
  let drained: (() => void) | undefined

  const settle = (id: number, error?: Error) => {
    const request = inFlight.get(id)
    if (!request) return // already settled (a reply of a worker that died after answering)
    inFlight.delete(id)
    if (error) request.reject(error)
    else request.resolve()
    if (inFlight.size === 0) {
      worker?.unref() // an idle worker does not keep the process alive
      drained?.()
    }
  }

  const send = (id: number, records: ScoreRecord[]) => {
    worker ??= spawn()
    worker.ref()
    worker.postMessage({ id, records } satisfies ExportRequest)
  }

  const spawn = (): Worker => {
    const started = new Worker(workerUrl, { workerData: settings })
    let error: Error | undefined
    started.on('message', ({ id, failure }: ExportReply) => settle(id, failure && errorOf(failure)))
    started.on('error', (e) => {
      error = e
    })
    started.on('exit', (code) => replace(started, error ?? new Error(`exit code ${code}`)))
    onWorker?.(started)
    return started
  }

  /** A worker died: its batches go to a new one, except those that outlived `maxWorkerDeaths`. */
  const replace = (dead: Worker, cause: Error) => {
    if (worker !== dead) return // terminated by close(), or already replaced
    worker = undefined
    for (const [id, request] of inFlight) {
      request.deaths++
      if (request.deaths >= maxWorkerDeaths) {
        const message = `the OTLP export worker died ${request.deaths} times exporting these scores: ${cause.message}`
        settle(id, new Error(message, { cause }))
      }
    }
    for (const [id, request] of inFlight) send(id, request.records)
  }

  worker = spawn()
  worker.unref()
  return {
    export(records) {
      if (closing) return Promise.reject(new Error('the OTLP sink is closed'))
      const id = nextId++
      return new Promise<void>((resolve, reject) => {
        inFlight.set(id, { records, deaths: 0, resolve, reject })
        send(id, records)
      })
    },
    async close() {
      closing = true
      if (inFlight.size > 0) await new Promise<void>((resolve) => (drained = resolve))
      const last = worker
      worker = undefined
      await last?.terminate()
    },
  }
}

/** The exporter's error on this thread: its status `code` is what the retry decision reads. */
function errorOf({ name, message, code, data }: ExportFailure): Error {
  const error = new Error(message) as Error & { code?: number | string; data?: string }
  error.name = name
  if (code !== undefined) error.code = code
  if (data !== undefined) error.data = data
  return error
}

/**
 * The fields of a score record, copied into plain objects: only what a score span is built from
 * crosses the thread boundary (a record carrying anything else, even something structured clone
 * refuses, is exported as before).
 */
export function plainScoreRecord(r: ScoreRecord): ScoreRecord {
  return {
    traceId: r.traceId,
    spanId: r.spanId,
    runId: r.runId,
    agentName: r.agentName,
    agentId: r.agentId,
    scorerId: r.scorerId,
    scorerName: r.scorerName,
    scorerKind: r.scorerKind,
    score: r.score,
    label: r.label,
    reason: r.reason,
    error: r.error && { type: r.error.type, message: r.error.message },
    judge: r.judge && {
      model: r.judge.model,
      inputTokens: r.judge.inputTokens,
      outputTokens: r.judge.outputTokens,
      totalTokens: r.judge.totalTokens,
      calls: r.judge.calls,
    },
    samplingRate: r.samplingRate,
    incomplete: r.incomplete,
    timestampMs: r.timestampMs,
  }
}
