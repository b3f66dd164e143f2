/**
 * The pipeline benchmark's OTLP backend, in a worker thread: the receiver (`startOtlpReceiver`)
 * parses every export request and decodes its score spans, work of the backend, not of the
 * pipeline under test, which in production runs elsewhere. On the pipeline's own thread it took
 * CPU from the subject that the bare kafkajs baseline does not pay. Posts `{ url, cpuUs }` once
 * listening, `{ scores, done: true }` when `workerData.expected` distinct score spans arrived,
 * and `{ closed: true, cpuUs }` (this thread's CPU time since it started, as in `{ url, cpuUs }`) after the message `'close'`.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { startOtlpReceiver } from '../test/helpers/fault-otlp-receiver.ts'

const cpu0 = process.threadCpuUsage()
const port = parentPort!
const expected = (workerData as { expected: number }).expected
const receiver = await startOtlpReceiver()
let done = false
receiver.onScore = () => {
  if (done || receiver.scores.size < expected) return
  done = true
  port.postMessage({ scores: receiver.scores.size, done: true })
}
port.on('message', async (message) => {
  if (message === 'scores') port.postMessage({ scores: receiver.scores.size })
  if (message !== 'close') return
  await receiver.close()
  const cpu = process.threadCpuUsage(cpu0)
  port.postMessage({ closed: true, cpuUs: cpu.user + cpu.system })
  port.close()
})
const started = process.threadCpuUsage(cpu0)
port.postMessage({ url: receiver.url, cpuUs: started.user + started.system })
