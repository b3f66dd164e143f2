import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url))

/** Output and exit code of one `tracescore` process. */
export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Runs the built `tracescore` command (bin/tracescore.js → dist/) as a user runs it, with the
 * Node that runs the tests (Node 24 from node_modules). Kills it after `timeoutMs`.
 */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/tracescore.js', ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => {
      stdout += d
    })
    child.stderr.on('data', (d) => {
      stderr += d
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** Writes a file under test/.tmp (inside the package, so `import 'tracescore'` resolves) and returns its path. */
export function writeTempFile(name: string, content: string): string {
  const dir = `${repoRoot}test/.tmp`
  mkdirSync(dir, { recursive: true })
  const path = `${dir}/${name}`
  writeFileSync(path, content)
  return path
}
