/**
 * The ingest benchmark's second thread (`twoThreadBound` in `ingest.bench.ts`): the span source's
 * work per record (`source-work.ts`) on records the main thread copies to it per fetched batch.
 * Replies `{ records }` (read so far) after each batch; `'reset'` starts a new round afresh.
 */
import { parentPort } from 'node:worker_threads'
import { createSourceWork } from './source-work.ts'

const port = parentPort!
let work = createSourceWork()

port.on('message', (message: { bytes: ArrayBuffer; lengths: number[] } | 'reset') => {
  if (message === 'reset') {
    work = createSourceWork()
    return
  }
  let offset = 0
  for (const length of message.lengths) {
    work.add(Buffer.from(message.bytes, offset, length))
    offset += length
  }
  work.takeReady()
  port.postMessage({ records: work.records() })
})
