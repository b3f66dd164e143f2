import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { loadCliConfig } from '../../src/cli.ts'
import { configDefaults } from '../../src/config/defaults.ts'
import type { TracescoreConfig } from '../../src/config/index.ts'
import { createKafkaIngest, repartitionGroupId } from '../../src/ingest/kafka-ingest.ts'
import { createLogger } from '../../src/ops/logger.ts'
import { freePort, repoRoot, spawnTracescore } from '../helpers/cli.ts'
import {
  chartDir,
  type HelmTools,
  helmTemplate,
  helmTools,
  kubeconform,
  type Manifest,
  manifestsOf,
  runTool,
  theOne,
} from '../helpers/helm.ts'
import { until } from '../helpers/poll.ts'

// The Helm chart (deploy/helm/tracescore) rendered and checked by the real tools: helm and
// kubeconform built from Go modules, the Kubernetes, KEDA and Prometheus Operator schemas made
// from Go modules (test/helpers/helm.ts). scripts/test-all.sh builds them before the unit tier
// (and leaves this file out where `go` is missing); run alone, the first run builds them here.

/** The values files rendered: the defaults and the chart's two non-default ones (ci/). */
const renderings: Record<string, string[]> = {
  defaults: [],
  'ci/keda-values.yaml': ['ci/keda-values.yaml'],
  'ci/minimal-values.yaml': ['ci/minimal-values.yaml'],
}
const chartValues = parse(readFileSync(`${chartDir}/values.yaml`, 'utf8'))
const kedaValues = parse(readFileSync(`${chartDir}/ci/keda-values.yaml`, 'utf8'))

type Container = {
  command?: string[]
  args: string[]
  ports: { name: string; containerPort: number }[]
  env: { name: string; value?: string }[]
  livenessProbe: { httpGet: { path: string; port: string } }
  readinessProbe: { httpGet: { path: string; port: string } }
  volumeMounts: { name: string; mountPath: string }[]
}
type Deployment = Manifest & {
  spec: {
    replicas?: number
    template: { spec: { terminationGracePeriodSeconds: number; containers: Container[] } }
  }
}
type ScaledObject = Manifest & {
  spec: {
    scaleTargetRef: { name: string }
    minReplicaCount: number
    maxReplicaCount: number
    triggers: { type: string; metadata: Record<string, string>; authenticationRef?: { name: string } }[]
  }
}

/** The image's final stage (Dockerfile): the folder it runs in and its ENTRYPOINT. */
const dockerfile = readFileSync(`${repoRoot}Dockerfile`, 'utf8')
const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '))
const instruction = (name: string) => new RegExp(`^${name} (.+)$`, 'm').exec(finalStage)?.[1]
const workdir = instruction('WORKDIR')!
const entrypoint = JSON.parse(instruction('ENTRYPOINT')!) as string[]

let tools: HelmTools
const rendered = new Map<string, string>()

beforeAll(async () => {
  tools = await helmTools()
  for (const [name, values] of Object.entries(renderings)) {
    const { code, stdout, stderr } = await helmTemplate(tools, { values })
    if (code !== 0) throw new Error(`helm template (${name}) failed: ${stderr}`)
    rendered.set(name, stdout)
  }
}, 1_800_000)

const manifests = (name: string) => manifestsOf(rendered.get(name)!)
const containerOf = (name: string) =>
  theOne<Deployment>(manifests(name), 'Deployment').spec.template.spec.containers[0]!

describe('helm lint and helm template', () => {
  it.each(Object.entries(renderings))('lints clean with the %s values (--strict)', async (_name, values) => {
    const args = [
      'lint',
      chartDir,
      '--strict',
      ...values.flatMap((file) => ['--values', `${chartDir}/${file}`]),
    ]
    const { code, stdout, stderr } = await runTool(tools.helm, args)
    expect(`${stdout}${stderr}`).toContain('1 chart(s) linted, 0 chart(s) failed')
    expect(code).toBe(0)
  })

  it('renders the objects of each values file', () => {
    const kinds = (name: string) => manifests(name).map((m) => `${m.kind}/${m.metadata.name}`)
    const base = ['ConfigMap', 'Deployment', 'Service'].map((k) => `${k}/tracescore`)
    expect(kinds('defaults').sort()).toEqual(
      [...base, 'PodDisruptionBudget/tracescore', 'ServiceAccount/tracescore'].sort(),
    )
    expect(kinds('ci/minimal-values.yaml').sort()).toEqual(base.sort())
    expect(kinds('ci/keda-values.yaml').sort()).toEqual(
      [
        ...base,
        'PodDisruptionBudget/tracescore',
        'ScaledObject/tracescore',
        'Secret/tracescore',
        'ServiceAccount/tracescore',
        'ServiceMonitor/tracescore',
        'TriggerAuthentication/tracescore',
      ].sort(),
    )
  })

  it('refuses values that cannot work, naming the value (values.schema.json and the templates)', async () => {
    const refused: [set: string[], message: string][] = [
      [['kafka.sasl.enabled=true'], 'kafka.sasl.enabled: the SASL user comes from a Secret'],
      [['kafka.sasl.mechanism=kerberos'], "at '/kafka/sasl/mechanism': value must be one of"],
      [['kafka.partitions=0'], "at '/kafka/partitions'"],
      [['kafka.partition=12'], "at '/kafka': additional properties 'partition' not allowed"],
      [['kafka.brokers={kafka}'], "at '/kafka/brokers/0'"],
      [['config.fileName=tracescore.json'], "at '/config/fileName'"],
      [
        ['keda.enabled=true', 'keda.minReplicaCount=9'],
        'keda.minReplicaCount (9) is above maxReplicaCount (6',
      ],
    ]
    for (const [set, message] of refused) {
      const result = await helmTemplate(tools, { set })
      expect(result.stderr, set.join(' ')).toContain(message)
      expect(result.code, set.join(' ')).not.toBe(0)
    }
  })
})

describe('schema validation (kubeconform, Kubernetes 1.37 + KEDA + Prometheus Operator schemas)', () => {
  it.each(Object.keys(renderings))('every object of the %s rendering is valid', async (name) => {
    const result = await kubeconform(tools, rendered.get(name)!)
    expect(result.resources).toEqual([])
    expect(result.summary).toEqual({ valid: manifests(name).length, invalid: 0, errors: 0, skipped: 0 })
    expect(result.code).toBe(0)
  })

  it('rejects misspelt and mistyped fields in Kubernetes and KEDA objects', async () => {
    const yaml = rendered
      .get('ci/keda-values.yaml')!
      .replace('terminationGracePeriodSeconds:', 'terminationGracePeriodSecond:')
      .replace(/maxUnavailable: 1/, 'maxUnavailable: [1]')
      .replace('lagThreshold:', 'lagThreshhold:')
      .replace('minReplicaCount: 2', 'minReplicaCount: two')
      .replace('scrapeTimeout: 10s', 'scrapeTimeout: ten seconds')
    const result = await kubeconform(tools, yaml)
    expect(result.code).not.toBe(0)
    const invalid = result.resources.filter((r) => r.status === 'statusInvalid').map((r) => r.kind)
    // The trigger's metadata is a free map in KEDA's schema: lagThreshhold passes the schema
    // (KEDA's operator refuses it); minReplicaCount: two does not.
    expect(invalid.sort()).toEqual(['Deployment', 'PodDisruptionBudget', 'ScaledObject', 'ServiceMonitor'])
    const message = (kind: string) => result.resources.find((r) => r.kind === kind)!.msg
    expect(message('Deployment')).toContain('terminationGracePeriodSecond')
    expect(message('ScaledObject')).toContain('minReplicaCount')
  })

  it('reports a kind it has no schema for as an error, never skipping it', async () => {
    const result = await kubeconform(
      tools,
      'apiVersion: example.com/v1\nkind: Widget\nmetadata: { name: w }\n',
    )
    expect(result.code).not.toBe(0)
    expect(result.summary).toMatchObject({ valid: 0, errors: 1, skipped: 0 })
  })
})

describe('KEDA ScaledObject', () => {
  it('is rendered only when keda.enabled, and then the Deployment leaves the replica count to it', async () => {
    expect(manifests('defaults').some((m) => m.kind === 'ScaledObject')).toBe(false)
    expect(theOne<Deployment>(manifests('defaults'), 'Deployment').spec.replicas).toBe(
      chartValues.replicaCount,
    )
    const on = manifestsOf((await helmTemplate(tools, { set: ['keda.enabled=true'] })).stdout)
    expect(on.filter((m) => m.kind === 'ScaledObject')).toHaveLength(1)
    expect(on.some((m) => m.kind === 'TriggerAuthentication')).toBe(false)
    expect(theOne<Deployment>(on, 'Deployment').spec.replicas).toBeUndefined()
  })

  it("scales the Deployment up to the partition count on the group's lag", async () => {
    const on = manifestsOf((await helmTemplate(tools, { set: ['keda.enabled=true'] })).stdout)
    const scaled = theOne<ScaledObject>(on, 'ScaledObject')
    expect(scaled.spec.scaleTargetRef.name).toBe(theOne(on, 'Deployment').metadata.name)
    expect(scaled.spec.maxReplicaCount).toBe(chartValues.kafka.partitions)
    expect(scaled.spec.triggers).toEqual([
      {
        type: 'kafka',
        metadata: expect.objectContaining({
          bootstrapServers: chartValues.kafka.brokers.join(','),
          consumerGroup: chartValues.kafka.groupId,
          topic: chartValues.kafka.topic,
          lagThreshold: String(chartValues.keda.lagThreshold),
          offsetResetPolicy: 'latest',
        }),
      },
    ])
    const capped = manifestsOf(
      (await helmTemplate(tools, { set: ['keda.enabled=true', 'keda.maxReplicaCount=3'] })).stdout,
    )
    expect(theOne<ScaledObject>(capped, 'ScaledObject').spec.maxReplicaCount).toBe(3)
  })

  it('watches the groups tracescore consumes as, with SASL from the Secret the pods read', async () => {
    const scaled = theOne<ScaledObject>(manifests('ci/keda-values.yaml'), 'ScaledObject')
    expect(scaled.spec.maxReplicaCount).toBe(kedaValues.kafka.partitions)
    // What tracescore's ingest stage makes of the same configuration (kafka.repartition on).
    const config = await renderedConfig('ci/keda-values.yaml')
    const consumed = consumedGroups(config)
    expect(scaled.spec.triggers.map((t) => [t.metadata.consumerGroup, t.metadata.topic]).sort()).toEqual(
      consumed.sort(),
    )
    expect(config.kafka.ssl).toBe(true)
    expect(config.kafka.sasl?.mechanism).toBe('scram-sha-512')
    for (const trigger of scaled.spec.triggers) {
      expect(trigger.metadata).toMatchObject({ sasl: 'scram_sha512', tls: 'enable' })
      expect(trigger.authenticationRef?.name).toBe('tracescore')
    }
    const auth = theOne<Manifest & { spec: { secretTargetRef: { key: string; name: string }[] } }>(
      manifests('ci/keda-values.yaml'),
      'TriggerAuthentication',
    )
    const secret = theOne<Manifest & { stringData: Record<string, string> }>(
      manifests('ci/keda-values.yaml'),
      'Secret',
    )
    expect(auth.spec.secretTargetRef.map((r) => secret.stringData[r.key])).toEqual([
      config.kafka.sasl?.username,
      config.kafka.sasl?.password,
    ])
  })
})

describe('the container runs `tracescore run` as the code serves it', () => {
  const packageJson = JSON.parse(readFileSync(`${repoRoot}package.json`, 'utf8'))

  it("starts the image's tracescore command with `run --config` and the mounted module", () => {
    for (const name of Object.keys(renderings)) {
      const container = containerOf(name)
      // No command of its own: the image's ENTRYPOINT, node running the package's `tracescore` bin.
      expect(container.command).toBeUndefined()
      expect(entrypoint).toEqual(['node', relative('.', packageJson.bin.tracescore)])
      const [command, flag, file] = container.args
      expect([command, flag]).toEqual(['run', '--config'])
      const mount = container.volumeMounts.find((m) => m.name === 'config')!
      const configMap = theOne<Manifest & { data: Record<string, string> }>(manifests(name), 'ConfigMap')
      expect(Object.keys(configMap.data).map((key) => `${mount.mountPath}/${key}`)).toEqual([file])
      // Inside the image's package folder, so the module's `import ... from 'tracescore'` resolves.
      expect(file!.startsWith(`${workdir}/`)).toBe(true)
    }
  })

  it("runs this release's image: the chart's appVersion is the package's version", () => {
    const chart = parse(readFileSync(`${chartDir}/Chart.yaml`, 'utf8'))
    expect(chart.appVersion).toBe(packageJson.version)
    const pod = theOne<Deployment>(manifests('defaults'), 'Deployment').spec.template.spec
    expect((pod.containers[0] as Container & { image: string }).image).toBe(
      `${chartValues.image.repository}:${packageJson.version}`,
    )
  })

  it('gives the pod longer to stop than tracescore drains, plus the sinks last export', () => {
    const drain = configDefaults.shutdown.drainTimeoutMs + configDefaults.sinks.timeoutMs
    for (const name of Object.keys(renderings)) {
      const pod = theOne<Deployment>(manifests(name), 'Deployment').spec.template.spec
      expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(drain)
    }
  })

  it.each(Object.keys(renderings))(
    'with the %s values, the configuration tracescore loads listens where the ports and the Service point',
    async (name) => {
      const config = await renderedConfig(name)
      const port = containerOf(name).ports.find((p) => p.name === 'metrics')!
      // The chart's default port is tracescore's own default (the Dockerfile's EXPOSE too).
      expect(chartValues.metrics.port).toBe(configDefaults.metrics.port)
      expect(instruction('EXPOSE')).toBe(String(configDefaults.metrics.port))
      expect(config.metrics.port).toBe(port.containerPort)
      expect(config.metrics.host).toBe('0.0.0.0')
      const service = theOne<Manifest & { spec: { ports: { targetPort: string }[] } }>(
        manifests(name),
        'Service',
      )
      expect(service.spec.ports.map((p) => p.targetPort)).toEqual(['metrics'])
      expect(containerOf(name).livenessProbe.httpGet.port).toBe('metrics')
      expect(containerOf(name).readinessProbe.httpGet.port).toBe('metrics')
    },
  )

  it('serves the probe and scrape paths: the process started as the container starts it', async () => {
    const name = 'ci/keda-values.yaml'
    const container = containerOf(name)
    const image = imageLayout(name)
    const port = await freePort()
    const secret = theOne<Manifest & { stringData: Record<string, string> }>(manifests(name), 'Secret')
    // The pod's environment, but a broker that never answers (tracescore waits for it, not
    // ready) and a free port: the rendered port is checked against the config above.
    // The image's /app is the scratch folder: the module's path in it.
    const [command, flag, file] = container.args
    expect(file).toBe(`${workdir}/${relative(image.root, image.configFile)}`)
    const service = spawnTracescore([command!, flag!, image.configFile], {
      cwd: image.root,
      env: {
        ...containerEnv(container),
        ...secret.stringData,
        KAFKA_BROKERS: '127.0.0.1:9',
        TRACESCORE_METRICS_PORT: String(port),
      },
    })
    try {
      // Its own log says it listens there (so no other process on a port reused meanwhile answers).
      const listening = `"url":"http://0.0.0.0:${port}","msg":"metrics and health endpoints listening"`
      await until(
        () => service.stderr().includes(listening) || service.child.exitCode !== null,
        60_000,
        () => service.output(),
      )
      expect(service.stderr(), service.output()).toContain(listening)
      const get = (path: string) => fetch(`http://127.0.0.1:${port}${path}`)
      expect((await get(container.livenessProbe.httpGet.path)).status).toBe(200)
      const readiness = await get(container.readinessProbe.httpGet.path)
      expect([readiness.status, await readiness.text()]).toEqual([503, 'not ready\n'])
      const monitor = theOne<Manifest & { spec: { endpoints: { path: string; port: string }[] } }>(
        manifests(name),
        'ServiceMonitor',
      )
      for (const endpoint of monitor.spec.endpoints) {
        expect(endpoint.port).toBe('metrics')
        const scrape = await get(endpoint.path)
        expect(scrape.status).toBe(200)
        expect(await scrape.text()).toContain('tracescore_records_total')
      }
      expect((await get('/not-a-probe')).status).toBe(404)
    } finally {
      const code = await service.stop()
      image.remove()
      expect(code, service.output()).toBe(0)
    }
  })
})

/** The plain environment variables of a container (no Secret references). */
function containerEnv(container: Container): Record<string, string> {
  return Object.fromEntries(container.env.map((e) => [e.name, e.value ?? '']))
}

/**
 * The image's folder (the Dockerfile's WORKDIR: the package with its dist/ and node_modules) in a
 * scratch folder of links to this checkout, with the rendered ConfigMap written where the pod
 * mounts it.
 */
function imageLayout(name: string): { root: string; configFile: string; remove: () => void } {
  const tmp = `${repoRoot}test/.tmp`
  mkdirSync(tmp, { recursive: true })
  const root = mkdtempSync(`${tmp}/helm-image-`)
  for (const entry of ['package.json', 'bin', 'dist', 'node_modules'])
    symlinkSync(`${repoRoot}${entry}`, join(root, entry))
  const container = containerOf(name)
  const mountPath = container.volumeMounts.find((m) => m.name === 'config')!.mountPath
  const configMap = theOne<Manifest & { data: Record<string, string> }>(manifests(name), 'ConfigMap')
  const [fileName, module] = Object.entries(configMap.data)[0]!
  const configFile = join(root, relative(workdir, mountPath), fileName)
  mkdirSync(dirname(configFile), { recursive: true })
  writeFileSync(configFile, module)
  return { root, configFile, remove: () => rmSync(root, { recursive: true, force: true }) }
}

/** The configuration `tracescore run --config` resolves from the rendered module and pod environment. */
async function renderedConfig(name: string): Promise<TracescoreConfig> {
  const image = imageLayout(name)
  try {
    const secret = manifests(name).find((m) => m.kind === 'Secret') as
      | { stringData?: Record<string, string> }
      | undefined
    return await loadCliConfig(image.configFile, {
      ...containerEnv(containerOf(name)),
      ...secret?.stringData,
    })
  } finally {
    image.remove()
  }
}

/** The (group, topic) pairs tracescore's ingest stage consumes with this configuration. */
function consumedGroups(config: TracescoreConfig): [string, string][] {
  const ingest = createKafkaIngest({
    config,
    kafka: { consumer: () => ({}), producer: () => ({}), admin: () => ({}) } as never,
    producer: {} as never,
    admin: {} as never,
    logger: createLogger('silent'),
    isAgentRunSpan: () => true,
    isGenAiSpan: () => true,
    process: async () => undefined,
    targets: [],
  })
  const repartition: [string, string][] = config.kafka.repartition
    ? [[repartitionGroupId(config.kafka.groupId), config.kafka.topic]]
    : []
  return [[ingest.groupId, ingest.topic], ...repartition]
}
