/** PromQL words that are not series names. */
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring'])
const LABEL_LIST = /\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g

/**
 * The series names a PromQL expression reads: identifiers that are not functions (followed by
 * `(`), keywords, label names or values (inside `{}` and grouping lists), strings or durations.
 * Enough for checking that shipped rules and dashboards name real metrics; not a PromQL parser.
 */
export function promqlMetricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(LABEL_LIST, ' ')
    .replace(/\b(group_left|group_right)\b/g, ' ')
    .replace(/\boffset\s+\S+/g, ' ')
  const names = new Set<string>()
  for (const match of bare.matchAll(/(?<![\w.$])[a-zA-Z_:][\w:]*/g)) {
    const isCall = /^\s*\(/.test(bare.slice(match.index + match[0].length))
    if (!isCall && !KEYWORDS.has(match[0])) names.add(match[0])
  }
  return [...names]
}
