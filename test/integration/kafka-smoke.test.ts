/**
 * Smoke test of the local broker (scripts/kafka-start.sh, Kafka 4.1.2 KRaft) with kafkajs:
 * topic creation, produce, consume in a consumer group with commits, every compression codec both
 * ways against Java's reference client, and a stop/restart of a second broker that keeps its data.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import kafkajs from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  codecs,
  lz4CompressFrame,
  lz4DecompressFrame,
  registerCompressionCodecs,
} from '../../src/ingest/codecs.ts'
import {
  createTopic,
  deleteTopics,
  javaClient,
  produce,
  readTopic,
  repoRoot,
  runScript,
  startBroker,
  testBrokers,
  testKafka,
  uniqueName,
} from '../helpers/kafka.ts'

const { CompressionCodecs, CompressionTypes } = kafkajs
const created: string[] = []

async function topic(prefix: string, partitions = 1): Promise<string> {
  const name = uniqueName(prefix)
  await createTopic(testKafka(), name, partitions)
  created.push(name)
  return name
}

/** The compression codec id in the attributes of the first record batch of partition 0 on disk. */
function codecOnDisk(topicName: string): number {
  // scripts/kafka-start.sh keeps port 9092's data in .kafka/data, other ports' in .kafka/port-<port>/data.
  const port = testBrokers()[0]?.split(':')[1] ?? '9092'
  const dataDir =
    process.env.KAFKA_DATA_DIR ??
    (port === '9092' ? join(repoRoot, '.kafka', 'data') : join(repoRoot, '.kafka', `port-${port}`, 'data'))
  const segment = readFileSync(join(dataDir, `${topicName}-0`, '00000000000000000000.log'))
  // v2 batch header: baseOffset 8, batchLength 4, partitionLeaderEpoch 4, magic 1, crc 4, attributes 2
  expect(segment.readInt8(16)).toBe(2)
  return segment.readInt16BE(21) & 0x07
}

afterAll(async () => {
  await deleteTopics(testKafka(), created)
})

describe('local Kafka broker', () => {
  it('answers metadata requests as a single KRaft node', async () => {
    const admin = testKafka().admin()
    await admin.connect()
    try {
      const cluster = await admin.describeCluster()
      expect(cluster.brokers).toHaveLength(1)
      expect(`${cluster.brokers[0]?.host}:${cluster.brokers[0]?.port}`).toBe(testBrokers()[0])
      expect(cluster.controller).toBe(cluster.brokers[0]?.nodeId)
    } finally {
      await admin.disconnect()
    }
  })

  it('delivers produced records to a consumer group and commits its offsets', async () => {
    const t = await topic('smoke', 3)
    const messages = Array.from({ length: 30 }, (_, i) => ({ key: `trace-${i % 7}`, value: `span-${i}` }))
    await produce(testKafka(), t, messages)
    const groupId = uniqueName('smoke-group')
    const records = await readTopic(testKafka(), t, 30, undefined, groupId)

    expect(records.map((r) => r.value?.toString()).sort()).toEqual(messages.map((m) => m.value).sort())
    // Same key, same partition (the default partitioner murmur2-hashes keys like Java's).
    const partitionOfKey = new Map<string, number>()
    for (const r of records) {
      const seen = partitionOfKey.get(r.key ?? '')
      if (seen !== undefined) expect(r.partition).toBe(seen)
      partitionOfKey.set(r.key ?? '', r.partition)
    }
    expect(new Set(records.map((r) => r.partition)).size).toBeGreaterThan(1)

    const admin = testKafka().admin()
    await admin.connect()
    try {
      const [committed] = await admin.fetchOffsets({ groupId, topics: [t] })
      const ends = await admin.fetchTopicOffsets(t)
      const total = (committed?.partitions ?? []).reduce((sum, p) => sum + Number(p.offset), 0)
      expect(total).toBe(30)
      expect(ends.reduce((sum, p) => sum + Number(p.high), 0)).toBe(30)
    } finally {
      await admin.disconnect()
    }
  })
})

describe('compression codecs', () => {
  beforeAll(() => {
    // Before registration kafkajs has only gzip: this is what the codecs fix.
    expect(() => CompressionCodecs[CompressionTypes.Snappy]()).toThrow(/not implemented/i)
    expect(() => CompressionCodecs[CompressionTypes.ZSTD]()).toThrow(/not implemented/i)
    expect(registerCompressionCodecs()).toEqual([
      CompressionTypes.Snappy,
      CompressionTypes.LZ4,
      CompressionTypes.ZSTD,
    ])
    // Idempotent.
    expect(registerCompressionCodecs()).toHaveLength(3)
    expect(CompressionCodecs[CompressionTypes.LZ4]()).toBe(codecs[CompressionTypes.LZ4])
  })

  it('lz4 frames: independent blocks, round trip across block boundaries', () => {
    const input = Buffer.concat([
      Buffer.alloc(70_000, 'abcd'),
      Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 251)),
    ])
    const frame = lz4CompressFrame(input)
    expect(frame.readUInt32LE(0)).toBe(0x184d2204)
    expect(frame[4]! & 0x20).toBe(0x20) // block independence, which Java's reader requires
    expect(lz4DecompressFrame(frame).equals(input)).toBe(true)
    expect(lz4DecompressFrame(lz4CompressFrame(Buffer.alloc(0))).length).toBe(0)
  })

  it("decodes batches compressed by franz-go, the Collector kafka exporter's client", async () => {
    // kafka/testdata: record sections of batches that franz-go 1.22.3 produced to this broker
    // (kafka/tools/franz): raw snappy without xerial framing, an LZ4 frame with 4 MiB blocks and
    // a content checksum, a zstd frame.
    for (const [name, type] of [
      ['snappy', CompressionTypes.Snappy],
      ['lz4', CompressionTypes.LZ4],
      ['zstd', CompressionTypes.ZSTD],
    ] as const) {
      const compressed = readFileSync(join(repoRoot, 'kafka', 'testdata', `franz-go-1.22.3-${name}.bin`))
      const records = (await CompressionCodecs[type]().decompress(compressed)).toString('latin1')
      for (let i = 0; i < 25; i++) expect(records).toContain(`franz-${i} franz-span franz-span`)
      expect(records.length).toBeGreaterThan(25 * 1650)
    }
  })

  const cases = [
    { name: 'gzip', type: CompressionTypes.GZIP, id: 1 },
    { name: 'snappy', type: CompressionTypes.Snappy, id: 2 },
    { name: 'lz4', type: CompressionTypes.LZ4, id: 3 },
    { name: 'zstd', type: CompressionTypes.ZSTD, id: 4 },
  ] as const
  const pad = ' otlp-span-bytes'.repeat(200)
  const ours = new Map<string, { topic: string; values: string[] }>()

  for (const c of cases) {
    it(`${c.name}: kafkajs -> broker -> kafkajs`, async () => {
      const t = await topic(`codec-${c.name}`)
      const values = Array.from({ length: 20 }, (_, i) => `${c.name}-${i}${pad}`)
      await produce(testKafka(), t, values, { compression: c.type })
      // Stored compressed with this codec (and the broker, which validates each batch, accepted it).
      expect(codecOnDisk(t)).toBe(c.id)
      const records = await readTopic(testKafka(), t, 20)
      expect(records.map((r) => r.value?.toString()).sort()).toEqual([...values].sort())
      ours.set(c.name, { topic: t, values })
    })
  }

  it('Java consumer decodes what kafkajs compressed (all codecs)', async () => {
    expect(ours.size).toBe(cases.length)
    const topics = [...ours.values()].map((o) => o.topic)
    const lines = (
      await javaClient(['consume', testBrokers().join(','), topics.join(','), String(20 * topics.length)])
    )
      .trim()
      .split('\n')
    for (const { topic: t, values } of ours.values()) {
      const got = lines.filter((l) => l.startsWith(`${t}\t`)).map((l) => l.slice(t.length + 1))
      expect(got.sort()).toEqual([...values].sort())
    }
  })

  it('kafkajs decodes what Java compressed (all codecs)', async () => {
    const topics = await Promise.all(cases.map((c) => topic(`codec-java-${c.name}`)))
    await javaClient([
      'produce',
      testBrokers().join(','),
      topics.join(','),
      cases.map((c) => c.name).join(','),
      '25',
      'java-',
    ])
    for (const [i, c] of cases.entries()) {
      const t = topics[i]!
      expect(codecOnDisk(t)).toBe(c.id)
      const records = await readTopic(testKafka(), t, 25)
      const values = records.map((r) => r.value?.toString() ?? '')
      expect(values).toHaveLength(25)
      for (let n = 0; n < 25; n++) expect(values).toContain(`java-${n} ${'span-payload '.repeat(160)}`)
      expect(records.map((r) => r.key).sort()).toEqual(Array.from({ length: 25 }, (_, n) => `k${n}`).sort())
    }
  })
})

describe('start/stop scripts (extra brokers on their own ports)', () => {
  const port = Number(process.env.KAFKA_SMOKE_RESTART_PORT ?? 29092)

  it('keeps topics, records and committed offsets across stop + KAFKA_KEEP_DATA=1 start', async () => {
    const first = await startBroker(port)
    try {
      expect(first.output).toMatch(/ready on 127\.0\.0\.1:\d+ after [\d.]+ s/)
      // Idempotent: a second start reuses the running broker.
      const again = await startBroker(port, { keepData: true })
      expect(again.output).toMatch(/reusing the broker already running/)

      const client = testKafka('restart-test', first.brokers)
      const admin = client.admin()
      await admin.connect()
      await admin.createTopics({ topics: [{ topic: 'survivor', numPartitions: 2 }], waitForLeaders: true })
      await admin.disconnect()
      await produce(client, 'survivor', ['a', 'b', 'c', 'd'])
      await readTopic(client, 'survivor', 4, undefined, 'restart-group')

      const stopped = await first.stop()
      expect(stopped).toMatch(/stopped the broker/)
      expect(await first.stop()).toMatch(/no broker started by us/)

      const second = await startBroker(port, { keepData: true })
      expect(second.output).toMatch(/ready on/)
      const admin2 = client.admin()
      await admin2.connect()
      try {
        expect(await admin2.listTopics()).toContain('survivor')
        const [committed] = await admin2.fetchOffsets({ groupId: 'restart-group', topics: ['survivor'] })
        expect((committed?.partitions ?? []).reduce((s, p) => s + Number(p.offset), 0)).toBe(4)
      } finally {
        await admin2.disconnect()
      }
      const reread = await readTopic(client, 'survivor', 4)
      expect(reread.map((r) => r.value?.toString()).sort()).toEqual(['a', 'b', 'c', 'd'])
    } finally {
      await first.stop(true)
    }
  })

  it('fails fast with the log tail when the broker cannot start (controller port taken)', async () => {
    // The test takes the port itself: borrowing the shared broker's port would start a broker that
    // squats it whenever the shared broker is not running.
    const squatter = createServer()
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve))
    const taken = String((squatter.address() as { port: number }).port)
    const err = await runScript('kafka-start.sh', {
      KAFKA_PORT: String(port + 7),
      KAFKA_CONTROLLER_PORT: taken,
    })
      .then(
        () => undefined,
        (e: unknown) => e as { code?: number; stderr?: string },
      )
      .finally(() => squatter.close())
    expect(err?.code).toBe(1)
    expect(err?.stderr).toMatch(/did not become ready/)
    expect(err?.stderr).toMatch(/Address already in use/)
    // Nothing left running for that port.
    expect(await runScript('kafka-stop.sh', { KAFKA_PORT: String(port + 7), KAFKA_WIPE: '1' })).toMatch(
      /no broker started by us/,
    )
  })
})
