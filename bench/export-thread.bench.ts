/**
 * The OTLP sink's export on its worker thread against the export on the caller's thread (issue
 * 20), without Kafka: 20,000 score records delivered as the pipeline delivers them (256 traces in
 * flight, 2 scores each, coalesced into exports of up to 512) to a null OTLP receiver in another
 * process, four rounds on one sink per mode (the first round pays the thread's JIT and heap
 * warm-up). Reports CPU µs per score record of the calling thread and of the whole process.
 * Run alone with `npx tsx bench/export-thread.bench.ts`.
 */
import { spawn } from 'node:child_process'
import { coalesceDeliveries } from '../src/sink/coalescing-sink.ts'
import { createOtlpSink } from '../src/sink/otlp-sink.ts'
import type { OtlpExportThread } from '../src/sink/otlp-sink-config.ts'
import { scoreRecordFixture } from '../src/sink/testing/score-record-fixture.ts'

const nullReceiver = `const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => r.end()) });
s.listen(0, '127.0.0.1', () => console.log(s.address().port))`

const ROUNDS = 4
const RECORDS = 20_000

async function rounds(endpoint: string, exportThread: OtlpExportThread): Promise<string[]> {
  const records = Array.from({ length: RECORDS }, (_, i) =>
    scoreRecordFixture({ scorerId: `s${i % 2}`, traceId: (i >> 1).toString(16).padStart(32, '0') }),
  )
  const sink = coalesceDeliveries(createOtlpSink({ endpoint, exportThread, retry: { retries: 0 } }))
  await sink.deliver(records.slice(0, 1)) // the worker is up
  const results: string[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const thread0 = process.threadCpuUsage()
    const process0 = process.cpuUsage()
    let next = 0
    await Promise.all(
      Array.from({ length: 256 }, async () => {
        while (next < records.length) {
          const at = next
          next += 2
          await sink.deliver(records.slice(at, at + 2))
        }
      }),
    )
    const thread = process.threadCpuUsage(thread0)
    const all = process.cpuUsage(process0)
    const per = (u: NodeJS.CpuUsage) => ((u.user + u.system) / RECORDS).toFixed(1)
    results.push(`${per(thread)} / ${per(all)}`)
  }
  await sink.close()
  return results
}

export async function run() {
  const receiver = spawn(process.execPath, ['-e', nullReceiver], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise<string>((resolve) =>
    receiver.stdout.once('data', (d) => resolve(String(d).trim())),
  )
  const endpoint = `http://127.0.0.1:${port}/v1/traces`
  const of: Record<OtlpExportThread, string[][]> = { worker: [], main: [] }
  for (let pair = 0; pair < 2; pair++) {
    for (const mode of ['worker', 'main'] as const) of[mode].push(await rounds(endpoint, mode))
  }
  receiver.kill()
  return (['worker', 'main'] as const).map((mode) => ({
    measure: `CPU µs per score record, calling thread / process, rounds 1-${ROUNDS} on one sink, two sinks: export on ${mode === 'worker' ? 'its worker thread' : "the caller's thread"}`,
    value: of[mode].map((r) => r.join('; ')).join(' | '),
    baseline: '-',
    ratio: '-',
    target: '-',
    met: '-',
  }))
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await run())
