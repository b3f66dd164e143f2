import type { ScoreRecord } from '../model/index.ts'
import type { Sink } from '../sink/sink.ts'

/** A sink that keeps every record in memory (the demo's summary reads it). */
export function createCollectingSink(): Sink & { records: ScoreRecord[] } {
  const records: ScoreRecord[] = []
  return {
    name: 'collect',
    records,
    async deliver(batch) {
      records.push(...batch)
    },
    async close() {},
  }
}

/** A plain-text table of scores per agent and scorer: runs scored, mean, min, max, failures. */
export function summaryTable(records: ScoreRecord[]): string {
  const groups = new Map<string, { agent: string; scorer: string; scores: number[]; failed: number }>()
  for (const r of records) {
    const agent = r.agentName ?? '(unnamed)'
    const key = `${agent}\u0000${r.scorerId}`
    const group = groups.get(key) ?? { agent, scorer: r.scorerId, scores: [], failed: 0 }
    if (r.score !== undefined) group.scores.push(r.score)
    else group.failed++
    groups.set(key, group)
  }
  const rows = [...groups.values()]
    .sort((a, b) => a.agent.localeCompare(b.agent) || a.scorer.localeCompare(b.scorer))
    .map((g) => {
      const n = g.scores.length
      const mean = n ? (g.scores.reduce((a, b) => a + b, 0) / n).toFixed(2) : '-'
      const min = n ? Math.min(...g.scores).toFixed(2) : '-'
      const max = n ? Math.max(...g.scores).toFixed(2) : '-'
      return [g.agent, g.scorer, String(n), mean, min, max, String(g.failed)]
    })
  const header = ['agent', 'scorer', 'scored', 'mean', 'min', 'max', 'failed']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) =>
    cells.map((c, i) => (i >= 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ')
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')
}
