/**
 * The benchmarks' OTLP backend, in a worker thread: the receiver (`startOtlpReceiver`) parses
 * every export request, work of the backend, not of the subject under test, which in production
 * runs elsewhere. On the pipeline's own thread it took CPU from the subject that the bare kafkajs
 * baseline does not pay. `workerData.count` says what `workerData.expected` counts: `'scores'`
 * (default), distinct score spans, decoded; `'spans'`, spans of any kind, scanned but not decoded
 * (a null receiver for a subject that forwards every span, as the Collector does).
 * Posts `{ url, cpuUs }` once listening, `{ scores, arrivals, done: true }` when the expected count
 * arrived, `{ scores, arrivals }` after the message `'counts'`, and `{ closed: true, cpuUs }` after
 * `'close'` (`cpuUs`: this thread's CPU time since it started).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { startOtlpReceiver } from '../test/helpers/fault-otlp-receiver.ts'

const cpu0 = process.threadCpuUsage()
const port = parentPort!
const { expected, count = 'scores' } = workerData as { expected: number; count?: 'scores' | 'spans' }
const receiver = await startOtlpReceiver({ decode: count === 'scores' })
const counts = () => ({ scores: receiver.scores.size, arrivals: receiver.arrivals() })
const reached = () => (count === 'scores' ? receiver.scores.size : receiver.arrivals()) >= expected
let done = false
const check = () => {
  if (done || !reached()) return
  done = true
  port.postMessage({ ...counts(), done: true })
}
receiver.onRequest = check
port.on('message', async (message) => {
  if (message === 'counts') port.postMessage(counts())
  if (message !== 'close') return
  await receiver.close()
  const cpu = process.threadCpuUsage(cpu0)
  port.postMessage({ closed: true, cpuUs: cpu.user + cpu.system })
  port.close()
})
const started = process.threadCpuUsage(cpu0)
port.postMessage({ url: receiver.url, cpuUs: started.user + started.system })
