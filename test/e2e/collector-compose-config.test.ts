import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../helpers/cli.ts'
import { otelcolBinary } from '../helpers/otelcol.ts'

const execFileP = promisify(execFile)

// The compose set-up's Collector config, checked by the Collector the tests build from the same
// release (tools/otelcol): every component and key must exist in 0.165, so the image accepts it.
describe('deploy/otelcol.yaml', () => {
  it('is a valid configuration for the Collector release the tests run', async () => {
    const bin = await otelcolBinary()
    const { stdout, stderr } = await execFileP(bin, ['validate', `--config=${repoRoot}deploy/otelcol.yaml`])
    expect(stderr + stdout).not.toMatch(/error/i)
  })

  it('is refused when it names a component the release does not have', async () => {
    const bin = await otelcolBinary()
    const broken = 'yaml:exporters::no_such_exporter: {}'
    const run = execFileP(bin, ['validate', `--config=${repoRoot}deploy/otelcol.yaml`, `--config=${broken}`])
    await expect(run).rejects.toThrow(/no_such_exporter/)
  })
})
