/**
 * Hostile records mixed into a stream of good agent runs, consumed by `tracescore run` (the CLI):
 * 10,000 damaged records (truncated, bit-flipped, random bytes, OTLP/JSON, UTF-16 JSON, gzip'd
 * protobuf), a span with a 10 MB attribute, a trace of 100,000 spans, and
 * attribute values nested 100 and 100,000 levels deep, and runs built against scoring (issue 11): a
 * 512 KiB base64 blob in a user message and a tool argument nested 100,000 levels deep, scored with
 * redaction (once a quadratic regex, once a stack overflow that made the trace retry forever and
 * stalled its partition). Proves: the process never crashes, the
 * span buffer stays under its cap (sampled from /metrics) and resident memory stays bounded, the
 * dead-letter topic holds exactly the records our decoder rejects (each with its error headers),
 * every good run — and every valid extreme one — is scored, and every offset gets committed.
 *
 * The service runs with the default `kafka.encoding` ('auto', detected per record), and the oracle
 * decodes with the same setting: the OTLP/JSON copies are valid records there (decoded and scored,
 * not dead-lettered); UTF-16 JSON and gzip'd protobuf stay undecodable.
 */
import { CompressionTypes } from 'kafkajs'
import { afterAll, describe, expect, it } from 'vitest'
import { decodeOtlpTraces, type OtlpEncodingOption } from '../../src/ingest/decode/index.ts'
import {
  encodeOtlpJson,
  encodeOtlpProto,
  generateAgentTraffic,
  shuffled,
} from '../../src/ingest/testing/agent-traffic.ts'
import { type ServiceProcess, startService } from '../helpers/cli.ts'
import { type OtlpReceiver, scoresByRun, startOtlpReceiver } from '../helpers/fault-otlp-receiver.ts'
import { writeServiceConfig } from '../helpers/fault-process.ts'
import {
  agentRunRequest,
  damagedRecords,
  deeplyNestedAnyValue,
  type HostileRecord,
  hugeTrace,
} from '../helpers/fault-records.ts'
import { groupOffsets, makeRuns, runKey } from '../helpers/fault-traffic.ts'
import { base64Run, deepJsonText } from '../helpers/hostile-inputs.ts'
import { createTopic, endOffsets, readTopic, testBrokers, testKafka, uniqueName } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

const HOSTILE = Number(process.env.FAULT_HOSTILE_RECORDS ?? 10_000)
const GOOD_RUNS = 500
const PARTITIONS = 2
const MAX_BUFFERED_SPANS = 20_000
const RSS_LIMIT_MIB = 1_024
/** The service's `kafka.encoding` (its default) and the oracle's: they must be the same. */
const ENCODING: OtlpEncodingOption = 'auto'

interface Planned {
  kind: string
  value: Buffer
  /** Expected agent run to be scored, with how many score spans. */
  run?: { key: string; scores: number }
  compress?: boolean
}

describe('hostile records', () => {
  const kafka = testKafka('fault-hostile')
  let receiver: OtlpReceiver | undefined
  let service: ServiceProcess | undefined
  afterAll(async () => {
    await service?.kill9()
    await receiver?.close()
  })

  it(`survives ${HOSTILE} damaged records and extreme ones; DLQ gets exactly the undecodable; good runs scored`, async () => {
    const topic = uniqueName('fault-hostile')
    const dlq = `${topic}-dlq`
    const groupId = uniqueName('fault-hostile-group')
    await createTopic(kafka, topic, PARTITIONS)
    await createTopic(kafka, dlq, 1)
    receiver = await startOtlpReceiver()
    const rx = receiver
    const config = writeServiceConfig(uniqueName('fault-hostile'), {
      brokers: testBrokers(),
      topic,
      groupId,
      deadLetterTopic: dlq,
      otlpUrl: rx.url,
      encoding: ENCODING,
      // Damaged records can leave traces that never look complete (no root, agent span never
      // ended): they are finalized at this age, and only then are their offsets committable.
      maxTraceAgeMs: 15_000,
      maxBufferedSpans: MAX_BUFFERED_SPANS,
      maxBufferedBytes: 64 * 1024 * 1024,
      // Redaction on one scorer, so the runs below go through it before scoring.
      scorers: `{
        answered: { scorer: answeredScorer, redact: { builtins: ['email', 'api-key', 'bearer-token', 'card-number'] } },
        toolSuccess: { scorer: toolSuccessScorer },
      }`,
    })

    // Damaged copies of real records (their own traces, not the good runs').
    const sampleTraffic = generateAgentTraffic({ runs: 40, seed: 22 })
    const samples = sampleTraffic.runs.map((r) => ({
      value: encodeOtlpProto(r.spans),
      json: encodeOtlpJson(r.spans),
    }))
    const damaged: Planned[] = damagedRecords(samples, HOSTILE, 5).map((h: HostileRecord) => ({ ...h }))
    const good: Planned[] = makeRuns(GOOD_RUNS, 21).map((r) => ({
      kind: 'good',
      value: r.value,
      run: { key: runKey(r), scores: 2 },
    }))
    const big = agentRunRequest({
      'big.attribute': 'tool output line, repeated; '.repeat((10 * 1024 * 1024) / 28),
    })
    const nested = agentRunRequest({ 'nested.value': { anyValue: deeplyNestedAnyValue(100, 'kvlist') } })
    const tooDeep = agentRunRequest({ 'nested.value': { anyValue: deeplyNestedAnyValue(100_000) } })
    const huge = hugeTrace(100_000, 1_000)
    const blob = agentRunRequest({
      'gen_ai.input.messages': JSON.stringify([
        { role: 'user', parts: [{ type: 'text', content: `attached: ${base64Run(512 * 1024)}` }] },
      ]),
    })
    const deepArguments = agentRunRequest({
      'gen_ai.input.messages': `[{"role":"user","parts":[{"type":"text","content":"look it up"}]},{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"lookup","arguments":${deepJsonText(600_000)}}]},{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"ok"}]},{"role":"user","parts":[{"type":"text","content":"and now?"}]}]`,
    })
    const extremes: Planned[] = [
      { kind: '10MB-attribute', value: big.value, run: { key: runKey(big), scores: 1 }, compress: true },
      { kind: 'nested-100', value: nested.value, run: { key: runKey(nested), scores: 1 } },
      { kind: 'nested-100000', value: tooDeep.value },
      { kind: 'base64-blob-redacted', value: blob.value, run: { key: runKey(blob), scores: 1 } },
      {
        kind: 'deep-json-arguments-redacted',
        value: deepArguments.value,
        run: { key: runKey(deepArguments), scores: 1 },
      },
    ]
    const hugeRecords: Planned[] = huge.values.map((value, i) => ({
      kind: '100k-span-trace',
      value,
      ...(i === 0 ? { run: { key: runKey(huge), scores: 1 } } : {}),
    }))
    // Good and damaged records shuffled; the extremes in the middle; the huge trace in its order.
    const mixed = shuffled([...good, ...damaged], 9)
    const half = Math.floor(mixed.length / 2)
    const plan = [...mixed.slice(0, half), ...extremes, ...hugeRecords, ...mixed.slice(half)]

    // The oracle: what our decoder rejects, with the service's encoding setting, must be
    // dead-lettered, nothing else.
    const rejected = plan.map((p) => {
      try {
        decodeOtlpTraces(p.value, ENCODING)
        return false
      } catch {
        return true
      }
    })
    const expectedBad = rejected.filter(Boolean).length

    service = await startService(config)
    const rssSamples: number[] = []
    const bufferedSamples: number[] = []
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        rssSamples.push(service!.peakRssMiB())
        const buffered = await service!.metric('tracescore_buffered_spans')
        if (buffered !== undefined) bufferedSamples.push(buffered)
        await new Promise((r) => setTimeout(r, 250))
      }
    })()

    // Produce in order, explicit partitions, batches under the broker's 1 MB limit.
    const producer = kafka.producer()
    await producer.connect()
    const placed: { partition: number; offset: number }[] = []
    let batch: { index: number; partition: number }[] = []
    let bytes = 0
    const flush = async (compress: boolean) => {
      if (batch.length === 0) return
      const result = await producer.send({
        topic,
        acks: -1,
        compression: compress ? CompressionTypes.GZIP : CompressionTypes.None,
        messages: batch.map((b) => ({ value: plan[b.index]!.value, partition: b.partition })),
      })
      const base = new Map(result.map((r) => [r.partition, Number(r.baseOffset)]))
      const next = new Map<number, number>()
      for (const b of batch) {
        const k = next.get(b.partition) ?? 0
        next.set(b.partition, k + 1)
        placed[b.index] = { partition: b.partition, offset: base.get(b.partition)! + k }
      }
      batch = []
      bytes = 0
    }
    for (let i = 0; i < plan.length; i++) {
      const p = plan[i]!
      if (p.compress) {
        await flush(false)
        batch.push({ index: i, partition: i % PARTITIONS })
        await flush(true)
        continue
      }
      if (bytes + p.value.length > 800_000) await flush(false)
      batch.push({ index: i, partition: i % PARTITIONS })
      bytes += p.value.length
    }
    await flush(false)
    await producer.disconnect()

    const expectedRuns = plan.flatMap((p) => (p.run ? [p.run] : []))
    const scoredRuns = () => {
      const by = scoresByRun(rx)
      return expectedRuns.filter((r) => (by.get(r.key)?.length ?? 0) >= r.scores)
    }
    await until(
      () => scoredRuns().length >= expectedRuns.length,
      240_000,
      () => `expected runs scored (${scoredRuns().length}/${expectedRuns.length})`,
      500,
    )
    const ends = new Map<number, number>()
    for (const p of placed) ends.set(p.partition, Math.max(ends.get(p.partition) ?? 0, p.offset + 1))
    await until(
      async () => {
        const committed = await groupOffsets(kafka, groupId, topic)
        return [...ends].every(([p, end]) => committed.get(p) === end)
      },
      60_000,
      () => 'every offset committed',
    )
    sampling = false
    await sampler
    const peakRss = service.peakRssMiB()
    const deadLetters = await service.metric('tracescore_dead_letters_total')
    const lateSpans = await service.metric('tracescore_late_spans_total')
    expect(await service.stop()).toBe(0)

    // As many dead letters as rejected records (counted first: a wrong count fails here with both
    // numbers, not in a read that waits for records that never come) ...
    const dlqEnds = await endOffsets(kafka, dlq)
    expect([...dlqEnds.values()].reduce((n, o) => n + Number(o), 0)).toBe(expectedBad)
    expect(deadLetters).toBe(expectedBad)
    // ... and they are exactly the rejected records, with their origin and error (a replay of the
    // same bad record would add a second copy and change the count above).
    const letters = await readTopic(kafka, dlq, expectedBad, 120_000)
    const expectedOrigins = new Set(
      plan.flatMap((_, i) => (rejected[i] ? [`${placed[i]!.partition}:${placed[i]!.offset}`] : [])),
    )
    const origins = new Set(
      letters.map(
        (l) => `${l.headers['tracescore-original-partition']}:${l.headers['tracescore-original-offset']}`,
      ),
    )
    expect(origins).toEqual(expectedOrigins)
    for (const l of letters) {
      expect(l.headers['tracescore-error']).toBeTruthy()
      expect(l.headers['tracescore-original-topic']).toBe(topic)
    }

    expect(Math.max(...bufferedSamples)).toBeLessThanOrEqual(MAX_BUFFERED_SPANS)
    const kinds: Record<string, { records: number; deadLettered: number }> = {}
    plan.forEach((p, i) => {
      kinds[p.kind] ??= { records: 0, deadLettered: 0 }
      const k = kinds[p.kind]!
      k.records++
      if (rejected[i]) k.deadLettered++
    })
    console.log(
      `hostile: ${plan.length} records, ${expectedBad} dead-lettered, ${expectedRuns.length} runs scored; ` +
        `peak RSS ${peakRss.toFixed(0)} MiB (samples max ${Math.max(...rssSamples.filter(Number.isFinite)).toFixed(0)}), ` +
        `buffered spans max ${Math.max(...bufferedSamples)} (cap ${MAX_BUFFERED_SPANS}), ` +
        `${lateSpans} late spans (the 100,000-span trace finalized before its end arrived)\n${JSON.stringify(kinds)}`,
    )
    expect(peakRss).toBeLessThan(RSS_LIMIT_MIB)
  })
})
