import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { resolveConfig } from '../../src/config/define-config.ts'

// No Docker engine runs here, so the compose file is checked by parsing it and by keeping its
// settings the ones the tests use (the local broker's template, the config defaults).
const root = new URL('../../', import.meta.url)
const read = (path: string) => readFileSync(new URL(path, root), 'utf8')
const compose = parse(read('docker-compose.yml'))
const collector = parse(read('deploy/otelcol.yaml'))
const defaults = resolveConfig({}, {})

function brokerProperties(): Record<string, string> {
  const entries = read('kafka/server.properties.template')
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => line.split('=', 2) as [string, string])
  return Object.fromEntries(entries)
}

describe('docker-compose.yml', () => {
  it('has the services the README promises', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['kafka', 'otel-collector', 'phoenix', 'tracescore'])
  })

  it('runs Kafka 4.1 in KRaft with the single-node settings of our local broker', () => {
    const env = compose.services.kafka.environment as Record<string, string | number>
    expect(compose.services.kafka.image).toMatch(/^apache\/kafka:4\.1\./)
    const props = brokerProperties()
    const shared = [
      'process.roles',
      'node.id',
      'offsets.topic.replication.factor',
      'offsets.topic.num.partitions',
      'transaction.state.log.replication.factor',
      'transaction.state.log.min.isr',
      'group.initial.rebalance.delay.ms',
      'auto.create.topics.enable',
    ]
    for (const key of shared) {
      const envName = `KAFKA_${key.toUpperCase().replaceAll('.', '_')}`
      expect(String(env[envName]), envName).toBe(props[key])
    }
  })

  it('runs the versions the tests run: Kafka of kafka/pom.xml, Phoenix of phoenix-start.sh, the Collector of tools/otelcol', () => {
    const kafkaVersion = read('kafka/pom.xml').match(/<kafka\.version>([^<]+)</)![1]
    expect(compose.services.kafka.image).toBe(`apache/kafka:${kafkaVersion}`)
    const phoenixVersion = read('scripts/lib/phoenix-env.sh').match(/^PHOENIX_VERSION=(\S+)$/m)![1]
    expect(compose.services.phoenix.image).toBe(`arizephoenix/phoenix:version-${phoenixVersion}`)
    // The test Collector is built from core vX.Y.0 and contrib vX.Y.z; the image is that release.
    const collectorVersion = parse(read('tools/otelcol/builder-config.yaml')).dist.version as string
    expect(compose.services['otel-collector'].image).toBe(
      `otel/opentelemetry-collector-contrib:${collectorVersion}`,
    )
    const contrib = read('tools/otelcol/go.mod').match(
      /opentelemetry-collector-contrib\/exporter\/kafkaexporter v(\d+\.\d+)\./,
    )![1]
    expect(collectorVersion.startsWith(`${contrib}.`)).toBe(true)
  })

  it("has the Collector forward the agents' traces to the backend tracescore writes scores to", () => {
    const pipeline = collector.service.pipelines.traces.exporters as string[]
    const backends = pipeline.filter((name) => name.split('/')[0] === 'otlp_http')
    expect(backends).toHaveLength(1)
    const endpoint = String(compose.services.tracescore.environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
    // The otlp_http exporter appends /v1/traces to its endpoint.
    expect(`${collector.exporters[backends[0]!].endpoint}/v1/traces`).toBe(endpoint)
    expect(compose.services['otel-collector'].depends_on).toHaveProperty('phoenix')
  })

  it('has the Collector write what tracescore reads: otlp_proto on the default topic, one trace per record', () => {
    const kafka = collector.exporters.kafka
    expect(kafka.traces.topic).toBe(defaults.kafka.topic)
    expect(kafka.traces.encoding).toBe(defaults.kafka.encoding)
    expect(kafka.partition_traces_by_id).toBe(true)
    expect(collector.service.pipelines.traces.exporters).toContain('kafka')
    const internal = String(compose.services.kafka.environment.KAFKA_ADVERTISED_LISTENERS).match(
      /PLAINTEXT:\/\/([^,]+)/,
    )![1]
    expect(kafka.brokers).toEqual([internal])
  })

  it('points tracescore at the internal listener and Phoenix over OTLP/HTTP protobuf (Phoenix refuses JSON)', () => {
    const env = compose.services.tracescore.environment
    const internal = String(compose.services.kafka.environment.KAFKA_ADVERTISED_LISTENERS).match(
      /PLAINTEXT:\/\/([^,]+)/,
    )![1]
    expect(env.KAFKA_BROKERS).toBe(internal)
    expect(env.TRACESCORE_KAFKA_TOPIC).toBe(defaults.kafka.topic)
    expect(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).toBe('http://phoenix:6006/v1/traces')
    expect(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL).toBe('http/protobuf')
    expect(resolveConfig({}, env).kafka.brokers).toEqual([internal])
    // Inside a container the metrics endpoint must listen beyond loopback to be scraped.
    expect(resolveConfig({}, env).metrics).toEqual({ host: '0.0.0.0', port: 9464 })
    expect(compose.services.tracescore.ports).toContain('9464:9464')
  })

  it('builds the tracescore image on node:24-slim', () => {
    expect(read('Dockerfile')).toMatch(/^FROM node:24-slim/m)
  })
})
