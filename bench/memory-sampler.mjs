/**
 * A memory sampler for `tracescore run` (a diagnostic, not a benchmark): load it with
 * `NODE_OPTIONS=--import=/abs/path/bench/memory-sampler.mjs` and set `MEM_SAMPLER_DIR`; in a
 * process whose script is `bin/tracescore.js` it appends one JSON line every `MEM_SAMPLER_MS`
 * (default 250) to `MEM_SAMPLER_DIR/<pid>.jsonl`: RSS, V8's heap spaces (used / size, MiB),
 * ArrayBuffers and external memory, and the service's buffered spans and open traces from its
 * /metrics. Other processes (the bench itself) are left alone. `MEM_SAMPLER_GC=1` (with
 * `--expose-gc`) forces a full GC before each sample: what is live, not what is not yet collected.
 * `MEM_SAMPLER_SMAPS=1` adds, each time RSS rose by 8 MiB, its resident MiB by kind of mapping
 * (`[heap]`: the C heap; `anon256k`: V8's pages; `file`: the binary and libraries).
 * `MEM_SAMPLER_GC_EVENTS=1` logs each collection (`gc`: minor, major, incremental, weak).
 * `MEM_SAMPLER_SNAPSHOT_AB=N` writes a heap snapshot (`<pid>.heapsnapshot`) the first time
 * ArrayBuffers exceed N MiB: what keeps them (`bench/snapshot-retainers.py`).
 * `MEM_SAMPLER_V8_FLAGS` is given to `v8.setFlagsFromString` as the process starts, and
 * `MEM_SAMPLER_V8_FLAGS_LATE` every 100 ms of its first 4 s (over the service's own tuning).
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs'
import { PerformanceObserver, performance } from 'node:perf_hooks'
import v8 from 'node:v8'

const dir = process.env.MEM_SAMPLER_DIR
if (dir && (process.argv[1] ?? '').endsWith('tracescore.js')) {
  mkdirSync(dir, { recursive: true })
  if (process.env.MEM_SAMPLER_V8_FLAGS) v8.setFlagsFromString(process.env.MEM_SAMPLER_V8_FLAGS)
  const late = process.env.MEM_SAMPLER_V8_FLAGS_LATE
  if (late) {
    // Again and again for the first seconds: after the service's own tuning (heap-tuning.ts).
    const again = setInterval(() => v8.setFlagsFromString(late), 100).unref()
    setTimeout(() => clearInterval(again), 4000).unref()
  }
  const file = `${dir}/${process.pid}.jsonl`
  const mib = (b) => Math.round((b / 1048576) * 10) / 10
  const start = Date.now()
  const port = process.env.TRACESCORE_METRICS_PORT
  const metric = (page, name) => {
    let sum
    for (const line of page.split('\n'))
      if (line.startsWith(name) && (line[name.length] === ' ' || line[name.length] === '{'))
        sum = (sum ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1))
    return sum
  }
  let peakRss = 0
  let snapshotTaken = false
  /** Resident MiB by kind of mapping: the heap (brk), files, and anonymous ones by size class. */
  const smapsSummary = () => {
    const out = {}
    let name = ''
    let size = 0
    for (const l of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
      const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(l)
      if (head) {
        size = (Number.parseInt(head[2], 16) - Number.parseInt(head[1], 16)) / 1024
        name =
          head[3] ||
          (size >= 65536
            ? 'anon>=64M'
            : size >= 1024
              ? 'anon1-64M'
              : size > 256
                ? 'anon256k-1M'
                : size === 256
                  ? 'anon256k'
                  : 'anon<256k')
        if (name.startsWith('/')) name = 'file'
        continue
      }
      const rss = /^Rss:\s+(\d+) kB/.exec(l)
      if (rss) out[name] = (out[name] ?? 0) + Number(rss[1]) / 1024
    }
    for (const k of Object.keys(out)) out[k] = Math.round(out[k])
    return out
  }
  const sample = async () => {
    if (process.env.MEM_SAMPLER_GC === '1' && globalThis.gc) globalThis.gc()
    const m = process.memoryUsage()
    const line = {
      t: Date.now() - start,
      rss: mib(m.rss),
      heapUsed: mib(m.heapUsed),
      heapTotal: mib(m.heapTotal),
      ab: mib(m.arrayBuffers),
      ext: mib(m.external),
    }
    for (const s of v8.getHeapSpaceStatistics())
      line[s.space_name.replace('_space', '')] = [mib(s.space_used_size), mib(s.space_size)]
    if (port) {
      try {
        const page = await (
          await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(200) })
        ).text()
        line.buffered = metric(page, 'tracescore_buffered_spans')
        line.records = metric(page, 'tracescore_records_total')
      } catch {}
    }
    if (!snapshotTaken && line.ab > Number(process.env.MEM_SAMPLER_SNAPSHOT_AB ?? Number.POSITIVE_INFINITY)) {
      snapshotTaken = true
      line.snapshot = v8.writeHeapSnapshot(`${dir}/${process.pid}.heapsnapshot`)
    }
    if (process.env.MEM_SAMPLER_SMAPS === '1' && line.rss > peakRss + 8) {
      peakRss = line.rss
      line.smaps = smapsSummary()
    }
    appendFileSync(file, `${JSON.stringify(line)}\n`)
  }
  if (process.env.MEM_SAMPLER_GC_EVENTS === '1') {
    const kinds = { 1: 'minor', 4: 'major', 8: 'incremental', 16: 'weak' }
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const m = process.memoryUsage()
        appendFileSync(
          file,
          `${JSON.stringify({ gc: kinds[e.detail?.kind] ?? e.detail?.kind, t: Math.round(performance.timeOrigin + e.startTime - start), ms: Math.round(e.duration * 10) / 10, rss: mib(m.rss), heapUsed: mib(m.heapUsed), ab: mib(m.arrayBuffers) })}\n`,
        )
      }
    }).observe({ entryTypes: ['gc'] })
  }
  setInterval(() => void sample(), Number(process.env.MEM_SAMPLER_MS ?? 250)).unref()
}
