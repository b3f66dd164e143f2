/**
 * `npm run bench`: runs every bench/*.bench.ts that exports `run()` (each in its own Node process,
 * so heaps and open clients do not mix), prints each one's rows, then one table of every row with
 * its ratio against the baseline measured in the same run and its target.
 *
 *   npm run bench                    all benchmarks
 *   npm run bench -- pipeline judge  only the files whose name contains one of the words
 *   npm run bench -- --markdown      the tables in Markdown (for bench/RESULTS.md)
 */
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

type Row = Record<string, unknown>

const self = fileURLToPath(import.meta.url)
const benchDir = join(self, '..')
const BEGIN = '\u0000BENCH-ROWS-BEGIN\u0000'
const END = '\u0000BENCH-ROWS-END\u0000'

/** Child mode: import one bench file, run it, print its rows as JSON between markers. */
async function child(file: string): Promise<void> {
  const mod = (await import(pathToFileURL(file).href)) as { run?: () => unknown }
  if (typeof mod.run !== 'function') {
    process.stdout.write(`${BEGIN}null${END}`)
    process.exit(0)
  }
  const rows = await mod.run()
  process.stdout.write(`${BEGIN}${JSON.stringify(rows)}${END}`)
  // Benchmarks may leave Kafka clients or servers open; the rows are out, so end here.
  process.exit(0)
}

const cell = (value: unknown): string => {
  if (typeof value === 'number') {
    if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US')
    return String(Math.round(value * 1000) / 1000)
  }
  return value === undefined || value === null ? '' : String(value)
}

/** A plain-text (or Markdown) table of rows with the union of their keys as columns. */
export function table(rows: Row[], markdown = false): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))]
  const body = rows.map((r) => columns.map((c) => cell(r[c])))
  if (markdown) {
    const line = (cells: string[]) => `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`
    return [line(columns), line(columns.map(() => '---')), ...body.map(line)].join('\n')
  }
  const widths = columns.map((c, i) => Math.max(c.length, ...body.map((b) => b[i]!.length)))
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ')
  return [line(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n')
}

/** The summary row of one bench row: its label, result, ratio and target, whatever its shape. */
function summarize(bench: string, row: Row): Row {
  const entries = Object.entries(row)
  const label = entries
    .filter(([k, v]) => typeof v === 'string' && /case|measure|subject|name|scenario/i.test(k))
    .map(([, v]) => v)
    .join(' / ')
  const pick = (re: RegExp) =>
    entries
      .filter(([k]) => re.test(k))
      .map(([k, v]) => `${k}=${cell(v)}`)
      .join(', ')
  return {
    bench,
    row: label || cell(entries[0]?.[1]),
    result: pick(/value|persec|rate|mib|bytes|ms$|cpuus|p50|p99|inflight/i),
    ratio: pick(/ratio/i),
    target: pick(/target|met|ok|pass/i),
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  if (args[0] === '--child') return child(args[1]!)
  const markdown = args.includes('--markdown')
  const words = args.filter((a) => !a.startsWith('--'))
  const files = readdirSync(benchDir)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => words.length === 0 || words.some((w) => f.includes(w)))
    .sort()
  const summary: Row[] = []
  let failed = 0
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')
  console.log(
    `machine: ${cpus().length} x ${cpus()[0]?.model ?? '?'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ` +
      `Node ${process.version}; load average ${load()} (other work on the machine shows here)`,
  )
  for (const file of files) {
    const name = basename(file, '.bench.ts')
    console.log(`\n== ${name} (bench/${file}) ==`)
    const started = Date.now()
    const result = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', join(benchDir, file)], {
      cwd: join(benchDir, '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: 30 * 60_000,
    })
    const out = result.stdout ?? ''
    const at = out.indexOf(BEGIN)
    const before = at >= 0 ? out.slice(0, at) : out
    if (before.trim()) process.stdout.write(before.endsWith('\n') ? before : `${before}\n`)
    if (at < 0 || result.status !== 0) {
      failed++
      console.log(`${name}: failed (exit ${result.status ?? result.signal})`)
      summary.push({ bench: name, row: 'FAILED', result: `exit ${result.status ?? result.signal}` })
      continue
    }
    const rows = JSON.parse(out.slice(at + BEGIN.length, out.indexOf(END))) as Row[] | null
    if (rows === null) {
      console.log(`${name}: exports no run(); skipped`)
      continue
    }
    console.log(table(rows, markdown))
    console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s; load average after: ${load()})`)
    for (const row of rows) summary.push(summarize(name, row))
  }
  console.log('\n== all benchmarks: results, ratios against same-run baselines, targets ==')
  console.log(table(summary, markdown))
  process.exitCode = failed > 0 ? 1 : 0
}

await main()
