/**
 * The OTLP export worker with ways to die, for the tests of a worker's replacement: a request
 * holding a record of scorer `exit-worker` makes the thread exit, one of `throw-in-worker` makes
 * it throw (uncaught), before the real worker sees the request. With the record's `reason` set to
 * an absolute file path, it dies only while that file does not exist (and creates it), so once
 * over all workers; otherwise every time.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import { parentPort } from 'node:worker_threads'
import type { ExportRequest } from '../otlp-export-worker.ts'

parentPort?.on('message', ({ records }: ExportRequest) => {
  for (const { scorerId, reason } of records) {
    if (scorerId !== 'exit-worker' && scorerId !== 'throw-in-worker') continue
    if (reason !== undefined && isAbsolute(reason)) {
      if (existsSync(reason)) continue
      writeFileSync(reason, '')
    }
    if (scorerId === 'exit-worker') process.exit(7)
    throw new Error('export worker crash (test)')
  }
})
await import('../otlp-export-worker.ts')
