import { execFileSync, spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { nodeVersionProblem, requiredRange, satisfies } from '../../bin/node-version.js'

describe('the Node.js tracescore needs', () => {
  it('reads the engines range and tells which versions satisfy it', () => {
    expect(requiredRange()).toBe('^22.18.0 || >=23.6.0')
    for (const version of ['22.18.0', '22.20.1', '23.6.0', '24.21.0', '26.0.0']) {
      expect(satisfies(version, requiredRange()), version).toBe(true)
    }
    for (const version of ['20.20.2', '22.17.9', '23.5.0', '18.19.0']) {
      expect(satisfies(version, requiredRange()), version).toBe(false)
    }
  })

  it('names the Node found, the Node needed and how to get it', () => {
    const message = nodeVersionProblem('20.20.2', '/usr/bin/node')!
    expect(message).toContain('Node.js 20.20.2 (/usr/bin/node)')
    expect(message).toContain('^22.18.0 || >=23.6.0')
    expect(message).toContain('npm ci')
    expect(nodeVersionProblem('24.21.0')).toBeUndefined()
  })

  it('bin/tracescore.js on the system Node: exit 2 with that message when it is too old, the CLI otherwise', () => {
    // The machine's own node (this test runs on the Node 24 npm installs into node_modules).
    const candidates = spawnSync('which', ['-a', 'node'], { encoding: 'utf8' }).stdout.split('\n')
    const system = candidates.find((path) => path !== '' && !path.includes('node_modules'))
    expect(system, 'a node on PATH outside node_modules').toBeDefined()
    const version = execFileSync(system!, ['--version'], { encoding: 'utf8' }).trim()
    const run = spawnSync(system!, ['bin/tracescore.js', '--help'], { encoding: 'utf8' })
    if (satisfies(version, requiredRange())) {
      expect(run.status).toBe(0)
      expect(run.stdout).toContain('Usage')
    } else {
      expect(run.status).toBe(2)
      expect(run.stderr).toContain(`this is Node.js ${version.replace(/^v/, '')}`)
      expect(run.stderr).not.toContain('SyntaxError')
    }
  })
})
