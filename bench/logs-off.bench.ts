/**
 * The span path with the logs topic off, this tree against a baseline checkout (`BASE_DIR`, e.g.
 * `git archive 1685c62 | tar -x -C /tmp/base` with this tree's node_modules linked in), in one
 * process: records of mixed traffic (100 agent runs and 900 HTTP/DB traces per round, OTLP protobuf
 * batches of 50 spans, as the Collector writes) through each tree's record reader (scan, header
 * check), trace assembler (hold, settle, release) and, for traces with GenAI activity, the spans
 * read (decoded, log records attached where held): the code issue 31 touched on the span path, with
 * no Kafka and no scoring, so the per-span CPU is not drowned by a shared broker's noise. Rounds
 * alternate base and this tree (`LOGS_OFF_ROUNDS`, default 30); prints the median CPU µs per span of
 * each and their ratio. `BASE_DIR=/tmp/base npx tsx bench/logs-off.bench.ts`.
 */
import { cpuUsage } from 'node:process'
import { chunks, encodeOtlpProto } from '../src/ingest/testing/agent-traffic.ts'
import { mixedTraffic } from '../test/helpers/mixed-traffic.ts'

interface Tree {
  name: string
  createRecordReader: typeof import('../src/ingest/record-reader.ts').createRecordReader
  TraceAssembler: typeof import('../src/ingest/trace-assembler.ts').TraceAssembler
  OffsetTracker: typeof import('../src/ingest/offset-tracker.ts').OffsetTracker
  isAgentRunSpan: typeof import('../src/transform/index.ts').isAgentRunSpan
  isGenAiSpan: typeof import('../src/transform/index.ts').isGenAiSpan
  silentLogger: typeof import('../src/ops/logger.ts').silentLogger
}

async function load(name: string, root: string): Promise<Tree> {
  return {
    name,
    ...(await import(`${root}/src/ingest/record-reader.ts`)),
    ...(await import(`${root}/src/ingest/trace-assembler.ts`)),
    ...(await import(`${root}/src/ingest/offset-tracker.ts`)),
    ...(await import(`${root}/src/transform/index.ts`)),
    ...(await import(`${root}/src/ops/logger.ts`)),
  }
}

/** CPU µs per span of one round: every record read, every trace released, GenAI traces' spans read. */
function round(tree: Tree, records: Buffer[], spans: number): number {
  let clock = 0
  const assembler = new tree.TraceAssembler<import('../src/ingest/offset-tracker.ts').RecordRef>({
    isAgentRunSpan: tree.isAgentRunSpan,
    isGenAiSpan: tree.isGenAiSpan,
    now: () => clock,
    settleMs: 10,
  })
  const tracker = new tree.OffsetTracker()
  const deadLetters = { send: async () => {}, count: () => 0, stop: () => {} }
  const reader = tree.createRecordReader({
    encoding: 'auto',
    assembler,
    tracker,
    deadLetters: deadLetters as never,
    logger: tree.silentLogger(),
  })
  const start = cpuUsage()
  let read = 0
  for (let i = 0; i < records.length; i += 20) {
    const batch = records
      .slice(i, i + 20)
      .map((value, j) => ({ offset: String(i + j), key: null, value, headers: {} }))
    reader.read({ topic: 'bench', partition: 0, records: batch })
    clock += 5
    for (const trace of assembler.takeReady()) if (trace.hasGenAi) read += trace.spans.length
  }
  clock += 1_000
  for (const trace of assembler.takeReady()) if (trace.hasGenAi) read += trace.spans.length
  const used = cpuUsage(start)
  if (read === 0) throw new Error('no GenAI span read')
  return (used.user + used.system) / spans
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

if (import.meta.url === `file://${process.argv[1]}`) {
  const base = process.env.BASE_DIR
  if (!base) throw new Error('BASE_DIR: a checkout of the baseline commit')
  const trees = [await load('base', base), await load('this tree', new URL('..', import.meta.url).pathname)]
  const traffic = [1, 2, 3].flatMap((seed) => mixedTraffic(seed))
  const records = chunks(traffic, 50).map((batch) => encodeOtlpProto(batch))
  const rounds = Number(process.env.LOGS_OFF_ROUNDS ?? 30)
  for (const tree of trees) round(tree, records, traffic.length) // warm-up
  const cpu: Record<string, number[]> = { base: [], 'this tree': [] }
  for (let i = 0; i < rounds; i++)
    for (const tree of i % 2 ? [...trees].reverse() : trees)
      cpu[tree.name]!.push(round(tree, records, traffic.length))
  const [b, a] = [median(cpu.base!), median(cpu['this tree']!)]
  console.table([
    { tree: 'base', spans: traffic.length, rounds, 'CPU µs/span (median)': b.toFixed(3) },
    {
      tree: 'this tree',
      spans: traffic.length,
      rounds,
      'CPU µs/span (median)': a.toFixed(3),
      ratio: (a / b).toFixed(3),
    },
  ])
}
