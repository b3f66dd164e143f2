/**
 * The Helm chart's real tools for the chart tests: `helm` and `kubeconform` built from Go modules
 * (scripts/helm-build.sh, scripts/kubeconform-build.sh) and the Kubernetes, KEDA and Prometheus
 * Operator schemas made from Go modules (scripts/kube-schemas.sh), all cached per machine.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { parseAllDocuments } from 'yaml'
import { repoRoot } from './cli.ts'

const execFileP = promisify(execFile)

/** The chart's folder. */
export const chartDir = `${repoRoot}deploy/helm/tracescore`

/** The Kubernetes version the schemas describe (scripts/kube-schemas.sh), given to `helm template`. */
export const kubeVersion = '1.37.2'

/** The paths of the tools; builds them first when the cache has none (minutes). */
export interface HelmTools {
  helm: string
  kubeconform: string
  schemas: string
}

/** Runs a build script and returns the path it prints last. */
async function built(script: string): Promise<string> {
  const { stdout } = await execFileP('bash', [`${repoRoot}scripts/${script}`], {
    cwd: repoRoot,
    timeout: 1_800_000,
  })
  return stdout.trim().split('\n').at(-1)!
}

/** helm, kubeconform and the schema folder, built (or taken from the cache) one after the other. */
export async function helmTools(): Promise<HelmTools> {
  return {
    helm: await built('helm-build.sh'),
    kubeconform: await built('kubeconform-build.sh'),
    schemas: await built('kube-schemas.sh'),
  }
}

/** What a tool printed and its exit code (0 when it succeeded). */
export interface ToolResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs a tool to its end, with `input` on stdin. */
export function runTool(file: string, args: string[], input?: string): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      { cwd: repoRoot, maxBuffer: 64 * 2 ** 20 },
      (error, stdout, stderr) => {
        const code = error ? (error as { code?: unknown }).code : 0
        if (typeof code !== 'number') reject(error)
        else resolve({ code, stdout, stderr })
      },
    )
    child.stdin!.end(input ?? '')
  })
}

/** A Kubernetes object as rendered. */
export type Manifest = {
  apiVersion: string
  kind: string
  metadata: { name: string }
  [key: string]: unknown
}

/** `helm template` of the chart with values files (paths relative to the chart) and `--set`s: its YAML. */
export async function helmTemplate(
  tools: HelmTools,
  options: { values?: string[]; set?: string[] } = {},
): Promise<ToolResult> {
  const args = ['template', 'tracescore', chartDir, '--namespace', 'scoring', '--kube-version', kubeVersion]
  for (const file of options.values ?? []) args.push('--values', `${chartDir}/${file}`)
  for (const set of options.set ?? []) args.push('--set', set)
  return runTool(tools.helm, args)
}

/** The objects of a rendering (its YAML documents, empty ones left out). */
export function manifestsOf(yaml: string): Manifest[] {
  return parseAllDocuments(yaml)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null)
}

/** The one object of `kind` in a rendering. */
export function theOne<T = Manifest>(manifests: Manifest[], kind: string): T {
  const found = manifests.filter((m) => m.kind === kind)
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`)
  return found[0] as T
}

/** kubeconform's verdict on a set of manifests: per-resource results and the summary. */
export interface Validation {
  code: number
  resources: { kind: string; name: string; status: string; msg: string }[]
  summary: { valid: number; invalid: number; errors: number; skipped: number }
}

/**
 * Validates YAML manifests with kubeconform against the local schemas only (a kind without a
 * schema is an error, not skipped), strictly: unknown fields and duplicate keys are invalid.
 */
export async function kubeconform(tools: HelmTools, yaml: string): Promise<Validation> {
  const location = `${tools.schemas}/{{ .ResourceKind }}{{ .KindSuffix }}.json`
  const { code, stdout, stderr } = await runTool(
    tools.kubeconform,
    ['-strict', '-summary', '-output', 'json', '-schema-location', location, '-'],
    yaml,
  )
  try {
    return { code, ...JSON.parse(stdout) }
  } catch {
    throw new Error(`kubeconform printed no JSON (exit ${code}): ${stdout}${stderr}`)
  }
}
