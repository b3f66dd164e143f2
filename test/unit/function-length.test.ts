import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../helpers/cli.ts'

/** The longest a function in `src/` may be (issue 13): longer ones do several jobs. */
const MAX_LINES = 100

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sourceFiles(path)
    return entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.test.ts') &&
      !entry.name.endsWith('.test-d.ts')
      ? [path]
      : []
  })
}

/** Every function-like node of a file (declarations, methods, arrows, function expressions) with its length in lines. */
function functionLengths(file: string): { name: string; lines: number }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
  const found: { name: string; lines: number }[] = []
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line
      const name = node.name && ts.isIdentifier(node.name) ? node.name.text : '(anonymous)'
      found.push({ name: `${relative(repoRoot, file)}:${start + 1} ${name}`, lines: end - start + 1 })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe('source size', () => {
  const all = sourceFiles(join(repoRoot, 'src')).flatMap(functionLengths)

  it('finds the functions of src/ (the scan itself works)', () => {
    expect(all.length).toBeGreaterThan(500)
    expect(
      all.some(
        (f) => f.name.includes('src/transform/extract-agent-runs.ts') && f.name.endsWith(' extractAgentRuns'),
      ),
    ).toBe(true)
  })

  it(`has no function in src/ longer than ${MAX_LINES} lines`, () => {
    const long = all.filter((f) => f.lines > MAX_LINES).map((f) => `${f.name}: ${f.lines} lines`)
    expect(long).toEqual([])
  })
})
