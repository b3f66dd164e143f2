// Readiness probe for scripts/kafka-start.sh: waits until a real Kafka client (kafkajs) can fetch
// cluster metadata from the broker and the group coordinator answers (offsets loaded), then
// optionally creates topics.
// Usage: node scripts/lib/kafka-probe.mjs --brokers 127.0.0.1:9092 [--timeout-ms 60000]
//        [--pid 1234] [--create-topics otlp_spans:3,other:1] [--client-config sasl-ssl/client.json]
// --client-config connects with TLS (its CA) and SCRAM as its `tracescore` user (kafka-sasl-ssl.sh).
// Exits 0 when ready, 1 on timeout, 2 when --pid is given and that process died.
import { readFileSync } from 'node:fs'
import kafkajs from 'kafkajs'

const { Kafka, logLevel } = kafkajs

const args = new Map()
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i], process.argv[i + 1])
const brokers = (args.get('--brokers') ?? '127.0.0.1:9092').split(',')
const timeoutMs = Number(args.get('--timeout-ms') ?? 60_000)
const pid = args.has('--pid') ? Number(args.get('--pid')) : undefined
const topics = (args.get('--create-topics') ?? '')
  .split(',')
  .filter(Boolean)
  .map((t) => {
    const [topic, partitions] = t.split(':')
    return { topic, numPartitions: Number(partitions ?? 1), replicationFactor: 1 }
  })

const alive = (p) => {
  try {
    process.kill(p, 0)
    return true
  } catch {
    return false
  }
}

const clientConfig = args.has('--client-config')
  ? JSON.parse(readFileSync(args.get('--client-config'), 'utf8'))
  : undefined
const security = clientConfig
  ? {
      ssl: { ca: [readFileSync(clientConfig.ca, 'utf8')] },
      sasl: {
        mechanism: clientConfig.mechanism,
        username: 'tracescore',
        password: clientConfig.users.tracescore,
      },
    }
  : {}

const kafka = new Kafka({
  clientId: 'tracescore-kafka-probe',
  brokers,
  ...security,
  logLevel: logLevel.NOTHING,
  connectionTimeout: 1000,
  requestTimeout: 5000,
  retry: { retries: 0 },
})

const deadline = Date.now() + timeoutMs
let lastError = 'no attempt'
while (Date.now() < deadline) {
  if (pid !== undefined && !alive(pid)) {
    console.error(`kafka-probe: broker process ${pid} exited`)
    process.exit(2)
  }
  const admin = kafka.admin()
  try {
    await admin.connect()
    const cluster = await admin.describeCluster()
    if (cluster.brokers.length > 0 && cluster.controller !== null && cluster.controller !== -1) {
      // Consumer groups usable too: the first request creates __consumer_offsets on a fresh broker;
      // after a restart with kept data it fails with COORDINATOR_LOAD_IN_PROGRESS until the group
      // coordinator has loaded that topic (admin.fetchOffsets does not retry that by itself).
      await admin.fetchOffsets({ groupId: 'tracescore-readiness-probe', topics: [] })
      if (topics.length > 0) {
        const existing = new Set(await admin.listTopics())
        const missing = topics.filter((t) => !existing.has(t.topic))
        if (missing.length > 0) await admin.createTopics({ topics: missing, waitForLeaders: true })
      }
      await admin.disconnect()
      console.log(
        `kafka-probe: ready, cluster ${cluster.clusterId}, brokers ${cluster.brokers
          .map((b) => `${b.host}:${b.port}`)
          .join(',')}`,
      )
      process.exit(0)
    }
    lastError = `metadata without controller: ${JSON.stringify(cluster)}`
  } catch (err) {
    lastError = err instanceof Error ? `${err.name}: ${err.message}` : String(err)
  }
  await admin.disconnect().catch(() => {})
  await new Promise((r) => setTimeout(r, 250))
}
console.error(`kafka-probe: not ready after ${timeoutMs} ms (${lastError})`)
process.exit(1)
