import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConfigError } from '../config/config-error.ts'
import { langfuseFromEnv } from '../config/env.ts'
import type { ScoreRecord } from '../model/index.ts'
import {
  langfuseScoreId,
  langfuseTraceScoreId,
  toLangfuseScore,
  toLangfuseTraceScore,
} from './langfuse-score.ts'
import { createLangfuseScoreSink } from './langfuse-score-sink.ts'
import { type RecordingServer, startRecordingServer } from './testing/recording-server.ts'
import { scoreRecordFixture } from './testing/score-record-fixture.ts'
import { traceScoresOf } from './trace-score.ts'

let server: RecordingServer
const sleep = async () => {}
beforeEach(async () => {
  server = await startRecordingServer()
})
afterEach(() => server.close())

describe('toLangfuseScore', () => {
  it('maps a numeric score to NUMERIC with the trace and observation ids', () => {
    const record = scoreRecordFixture({ label: 'pass' })
    expect(toLangfuseScore(record, { environment: 'production' })).toEqual({
      id: langfuseScoreId(record),
      traceId: '5b8efff798038103d269b633813fc60c',
      observationId: 'eee19b7ec3c1b174',
      name: 'Task success',
      value: 0.82,
      dataType: 'NUMERIC',
      comment: 'Resolved the order query in 2 tool calls',
      environment: 'production',
      metadata: expect.objectContaining({
        scorerId: 'task-success',
        label: 'pass',
        agentName: 'support-agent',
      }),
    })
  })

  it('maps label-only scores to BOOLEAN (true/false) or CATEGORICAL, and forced types', () => {
    expect(toLangfuseScore(scoreRecordFixture({ score: undefined, label: 'False' }))).toMatchObject({
      dataType: 'BOOLEAN',
      value: 0,
    })
    expect(toLangfuseScore(scoreRecordFixture({ score: undefined, label: 'relevant' }))).toMatchObject({
      dataType: 'CATEGORICAL',
      value: 'relevant',
    })
    const dataTypes = { 'task-success': 'BOOLEAN' as const }
    expect(toLangfuseScore(scoreRecordFixture({ score: 1 }), { dataTypes })).toMatchObject({
      dataType: 'BOOLEAN',
      value: 1,
    })
    expect(
      toLangfuseScore(scoreRecordFixture({ score: 0.3 }), {
        passThreshold: 0.5,
        dataTypes: { 'task-success': 'CATEGORICAL' },
      }),
    ).toMatchObject({ dataType: 'CATEGORICAL', value: 'fail' })
  })

  it('has no score to write for a failed scoring', () => {
    expect(toLangfuseScore(scoreRecordFixture({ error: { type: 'E', message: 'm' } }))).toBeUndefined()
  })

  it('derives a stable UUID-shaped id per (trace, span, scorer)', () => {
    const id = langfuseScoreId(scoreRecordFixture())
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(langfuseScoreId(scoreRecordFixture({ score: 0.1, timestampMs: 1 }))).toBe(id)
    expect(langfuseScoreId(scoreRecordFixture({ scorerId: 'other' }))).not.toBe(id)
  })
})

describe('toLangfuseTraceScore', () => {
  const runs = (...overrides: Partial<ScoreRecord>[]) =>
    overrides.map((o, i) => scoreRecordFixture({ spanId: `00000000000000b${i}`, ...o }))
  const traceScore = (records: ScoreRecord[], options = {}) =>
    toLangfuseTraceScore(traceScoresOf(records)[0]!, records[0]!, options)

  it('types the trace score like a run score: shared labels, forced types, nothing when labels disagree', () => {
    expect(
      traceScore(runs({ score: undefined, label: 'true' }, { score: undefined, label: 'true' })),
    ).toMatchObject({
      dataType: 'BOOLEAN',
      value: 1,
    })
    expect(
      traceScore(runs({ score: undefined, label: 'rude' }, { score: undefined, label: 'kind' })),
    ).toBeUndefined()
    expect(
      traceScore(runs({ score: 1 }, { score: 0.2 }), { dataTypes: { 'task-success': 'BOOLEAN' } }),
    ).toMatchObject({ dataType: 'BOOLEAN', value: 1 })
    expect(traceScore(runs({ score: undefined, error: { type: 'E', message: 'm' } }))).toBeUndefined()
  })
})

describe('createLangfuseScoreSink', () => {
  it('posts one score per record with Basic auth and skips failed scorings', async () => {
    const sink = createLangfuseScoreSink({
      url: server.baseUrl,
      publicKey: 'pk-lf-1',
      secretKey: 'sk-lf-2',
      sleep,
    })
    await sink.deliver([
      scoreRecordFixture(),
      scoreRecordFixture({ scorerId: 'broken', error: { type: 'E', message: 'm' } }),
      scoreRecordFixture({ scorerId: 'tone', scorerName: 'Tone', score: undefined, label: 'friendly' }),
    ])
    expect(server.requests.map((r) => [r.method, r.url])).toEqual(
      Array(4).fill(['POST', '/api/public/scores']),
    )
    expect(server.requests[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('pk-lf-1:sk-lf-2').toString('base64')}`,
    )
    // Two run scores on the agent observation, then the trace-level ones (none for the failed scorer).
    const bodies = server.requests.map(
      (r) => r.json as { name: string; dataType: string; observationId?: string },
    )
    expect(bodies.map((b) => [b.name, b.dataType, b.observationId])).toEqual([
      ['Task success', 'NUMERIC', 'eee19b7ec3c1b174'],
      ['Tone', 'CATEGORICAL', 'eee19b7ec3c1b174'],
      ['Task success', 'NUMERIC', undefined],
      ['Tone', 'CATEGORICAL', undefined],
    ])
    expect(sink.stats()).toEqual({ delivered: 2, failed: 0, retries: 0, skipped: 1 })
  })

  it('on retry re-sends only the scores not yet acknowledged, with the same ids', async () => {
    const env = { LANGFUSE_BASE_URL: server.baseUrl, LANGFUSE_PUBLIC_KEY: 'pk', LANGFUSE_SECRET_KEY: 'sk' }
    const sink = createLangfuseScoreSink({ ...langfuseFromEnv({}, env), sleep })
    const records = ['a', 'b', 'c'].map((scorerId) => scoreRecordFixture({ scorerId }))
    server.answerNext(200, 500)
    await sink.deliver(records)
    const sent = server.requests.slice(0, 4).map((r) => {
      const body = r.json as { id: string; metadata: { scorerId: string } }
      return `${body.metadata.scorerId}:${r.status}:${body.id === langfuseScoreId(records.find((x) => x.scorerId === body.metadata.scorerId)!)}`
    })
    expect(sent).toEqual(['a:200:true', 'b:500:true', 'b:200:true', 'c:200:true'])
    const traceLevel = server.requests.slice(4).map((r) => (r.json as { id: string }).id)
    expect(traceLevel).toEqual(['a', 'b', 'c'].map((s) => langfuseTraceScoreId(records[0]!.traceId, s)))
    expect(sink.stats()).toEqual({ delivered: 3, failed: 0, retries: 1, skipped: 0 })
  })

  it('writes one trace-level score per scorer per trace: the mean and count of several runs, the runs in metadata', async () => {
    const sink = createLangfuseScoreSink({
      url: server.baseUrl,
      publicKey: 'pk',
      secretKey: 'sk',
      sleep,
      environment: 'prod',
    })
    const traceId = '5b8efff798038103d269b633813fc60c'
    const run = (spanId: string, score: number) =>
      scoreRecordFixture({ spanId, runId: `${traceId}:${spanId}`, score })
    await sink.deliver([run('00000000000000a1', 1), run('00000000000000a2', 0.4)])
    expect(server.requests).toHaveLength(3)
    expect(server.requests[2]!.json).toEqual({
      id: langfuseTraceScoreId(traceId, 'task-success'),
      traceId,
      name: 'Task success',
      value: 0.7,
      dataType: 'NUMERIC',
      comment: 'mean of 2 runs: 00000000000000a1: 1, 00000000000000a2: 0.4',
      environment: 'prod',
      metadata: {
        source: 'tracescore',
        scorerId: 'task-success',
        scorerKind: 'llm',
        count: 2,
        runs: [
          { span_id: '00000000000000a1', run_id: `${traceId}:00000000000000a1`, score: 1 },
          { span_id: '00000000000000a2', run_id: `${traceId}:00000000000000a2`, score: 0.4 },
        ],
      },
    })
    expect(sink.stats()).toEqual({ delivered: 2, failed: 0, retries: 0, skipped: 0 })

    // A late run of the same trace, delivered on its own: it joins the runs the sink wrote, same id.
    await sink.deliver([run('00000000000000a3', 0.1)])
    const late = server.requests.at(-1)!.json as { id: string; value: number; metadata: { count: number } }
    expect(late.id).toBe(langfuseTraceScoreId(traceId, 'task-success'))
    expect(late.value).toBeCloseTo(0.5, 12)
    expect(late.metadata.count).toBe(3)
    // A replay of the first delivery changes nothing.
    await sink.deliver([run('00000000000000a1', 1), run('00000000000000a2', 0.4)])
    expect((server.requests.at(-1)!.json as { value: number }).value).toBeCloseTo(0.5, 12)
  })

  it('retries a failing trace-level score without re-sending the acknowledged run scores', async () => {
    const sink = createLangfuseScoreSink({ url: server.baseUrl, publicKey: 'pk', secretKey: 'sk', sleep })
    server.answerNext(200, 503, 429)
    await sink.deliver([scoreRecordFixture()])
    expect(
      server.requests.map((r) => [r.status, (r.json as { observationId?: string }).observationId]),
    ).toEqual([
      [200, 'eee19b7ec3c1b174'],
      [503, undefined],
      [429, undefined],
      [200, undefined],
    ])
    expect(sink.stats()).toEqual({ delivered: 1, failed: 0, retries: 2, skipped: 0 })
  })

  it('refuses to start without keys, or with credentials in the URL, as configuration errors naming the key', () => {
    expect(() => createLangfuseScoreSink({})).toThrow(ConfigError)
    expect(() => createLangfuseScoreSink({})).toThrow(/^sinks\.langfuse\.publicKey: /)
    expect(() => createLangfuseScoreSink({ publicKey: 'pk' })).toThrow(/^sinks\.langfuse\.secretKey: /)
    // The same checks when the keys come from the environment (resolveConfig), naming the variable.
    expect(() => langfuseFromEnv({}, {})).toThrow(/^sinks\.langfuse\.publicKey: .*LANGFUSE_PUBLIC_KEY/)
    expect(() => langfuseFromEnv({}, { LANGFUSE_PUBLIC_KEY: 'pk' })).toThrow(
      /^sinks\.langfuse\.secretKey: .*LANGFUSE_SECRET_KEY/,
    )
    const keys = { LANGFUSE_PUBLIC_KEY: 'pk', LANGFUSE_SECRET_KEY: 'sk' }
    expect(() =>
      langfuseFromEnv({}, { ...keys, LANGFUSE_HOST: 'https://pk:hunter2@langfuse.example' }),
    ).toThrow(
      /^LANGFUSE_HOST: a user name or password in the URL is not accepted.*https:\/\/\*\*\*@langfuse\.example/,
    )
  })
})
