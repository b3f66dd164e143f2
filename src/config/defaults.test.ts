import { readFileSync } from 'node:fs'
import { describe, expect, it, vi } from 'vitest'
import type { Span } from '../model/index.ts'

const deadLetterTopics = vi.hoisted(() => [] as (string | false)[])
vi.mock('../ingest/dead-letter-producer.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../ingest/dead-letter-producer.ts')>()
  return {
    ...original,
    createDeadLetterProducer: (options: Parameters<typeof original.createDeadLetterProducer>[0]) => {
      deadLetterTopics.push(options.topic)
      return original.createDeadLetterProducer(options)
    },
  }
})

const { resolveConfig } = await import('./define-config.ts')
const { configDefaults } = await import('./defaults.ts')
const { TraceAssembler } = await import('../ingest/trace-assembler.ts')
const { createKafkaSource } = await import('../ingest/kafka-source.ts')
const { createTraceRepartitioner } = await import('../ingest/repartition/trace-repartitioner.ts')
const { createMemoryTopic } = await import('../ingest/testing/memory-consumer.ts')

const resolved = resolveConfig({}, {})

const timing: Pick<Span, 'kind' | 'startTimeUnixNano' | 'endTimeUnixNano' | 'status'> = {
  kind: 1,
  startTimeUnixNano: '1000',
  endTimeUnixNano: '2000',
  status: { code: 0 },
}
const empty = { attributes: {}, events: [], links: [], resource: {}, scope: { name: 'test' } }
const agentSpan = (spanId: string): Span => {
  const ids = { traceId: 'a'.repeat(32), spanId, parentSpanId: 'f'.repeat(16), name: 'invoke_agent' }
  return { ...ids, ...timing, ...empty }
}

describe('configuration defaults', () => {
  it('the schema fills in the shared defaults object', () => {
    expect(resolved.kafka).toMatchObject(configDefaults.kafka)
    expect(resolved.assembly).toEqual(configDefaults.assembly)
    expect(resolved.judges.timeoutMs).toBe(configDefaults.judges.timeoutMs)
    expect(resolved.judges.defaultLimits.concurrency).toBe(configDefaults.judges.concurrency)
    expect(resolved.ledger).toEqual(configDefaults.ledger)
    expect(resolved.metrics).toEqual(configDefaults.metrics)
    expect(resolved.log).toEqual(configDefaults.log)
  })

  it('an assembler built without settings settles and ages traces with the resolved config values', () => {
    const clock = { t: 1_000_000 }
    const assembler = new TraceAssembler<string>({
      isAgentRunSpan: (s) => s.name === 'invoke_agent',
      now: () => clock.t,
    })
    assembler.add([agentSpan('01')], 'r1')
    clock.t += resolved.assembly.settleMs - 1
    expect(assembler.takeReady()).toEqual([])
    clock.t += 1
    expect(assembler.takeReady().map((t) => t.reason)).toEqual(['settled'])

    // A trace that never settles (a span every second) is finalized at maxTraceAgeMs.
    const aging = new TraceAssembler<string>({ isAgentRunSpan: () => false, now: () => clock.t })
    const start = clock.t
    let released: string[] = []
    for (let i = 0; released.length === 0 && clock.t - start <= resolved.assembly.maxTraceAgeMs; i++) {
      aging.add([{ ...agentSpan(String(i).padStart(16, '0')), parentSpanId: '1'.repeat(16) }], `r${i}`)
      clock.t += 1_000
      released = aging.takeReady().map((t) => t.reason)
    }
    expect(released).toEqual(['age'])
    expect(clock.t - start).toBe(resolved.assembly.maxTraceAgeMs)
  })

  it('the Kafka source and the repartitioner dead-letter to the resolved config topic by default', () => {
    deadLetterTopics.length = 0
    const topic = createMemoryTopic('custom_topic')
    const fakeKafka = {
      consumer: () => ({}),
      producer: () => ({ connect: async () => {}, disconnect: async () => {}, send: async () => [] }),
    }
    createKafkaSource({
      kafka: fakeKafka as never,
      topic: 'custom_topic',
      isAgentRunSpan: () => true,
      process: async () => undefined,
      targets: [],
    })
    createTraceRepartitioner({
      consumer: topic.consumer(),
      producer: fakeKafka.producer() as never,
      sourceTopic: 'custom_topic',
    })
    expect(deadLetterTopics).toEqual([resolved.kafka.deadLetterTopic, resolved.kafka.deadLetterTopic])
  })

  it("the README's configuration table states the same defaults", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    const row = (key: string) =>
      readme.match(new RegExp(`^\\| \`${key.replace('.', '\\.')}\` \\| \`([^\`]+)\``, 'm'))?.[1]
    const stated: Record<string, unknown> = {
      'kafka.topic': resolved.kafka.topic,
      'kafka.groupId': resolved.kafka.groupId,
      'kafka.encoding': resolved.kafka.encoding,
      'kafka.fromBeginning': resolved.kafka.fromBeginning,
      'kafka.deadLetterTopic': resolved.kafka.deadLetterTopic,
      'kafka.repartition': resolved.kafka.repartition,
      'kafka.fetchMaxWaitMs': resolved.kafka.fetchMaxWaitMs,
      'kafka.sessionTimeoutMs': resolved.kafka.sessionTimeoutMs,
      'assembly.settleMs': resolved.assembly.settleMs,
      'assembly.maxTraceAgeMs': resolved.assembly.maxTraceAgeMs,
      'assembly.rescoreLateSpans': resolved.assembly.rescoreLateSpans,
      'assembly.maxInFlightTraces': resolved.assembly.maxInFlightTraces,
      'judges.timeoutMs': resolved.judges.timeoutMs,
      'ledger.enabled': resolved.ledger.enabled,
      'ledger.retentionMs': resolved.ledger.retentionMs,
      'ledger.maxEntries': resolved.ledger.maxEntries,
      'ledger.onUnavailable': resolved.ledger.onUnavailable,
      'ledger.startTimeoutMs': resolved.ledger.startTimeoutMs,
      'log.level': resolved.log.level,
    }
    for (const [key, value] of Object.entries(stated)) expect(row(key), key).toBe(String(value))
  })
})
