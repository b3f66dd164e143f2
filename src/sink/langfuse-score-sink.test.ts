import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConfigError } from '../config/config-error.ts'
import { langfuseFromEnv } from '../config/env.ts'
import { langfuseScoreId, toLangfuseScore } from './langfuse-score.ts'
import { createLangfuseScoreSink } from './langfuse-score-sink.ts'
import { type RecordingServer, startRecordingServer } from './testing/recording-server.ts'
import { scoreRecordFixture } from './testing/score-record-fixture.ts'

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
    expect(server.requests.map((r) => [r.method, r.url])).toEqual([
      ['POST', '/api/public/scores'],
      ['POST', '/api/public/scores'],
    ])
    expect(server.requests[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('pk-lf-1:sk-lf-2').toString('base64')}`,
    )
    expect(server.requests.map((r) => (r.json as { name: string; dataType: string }).dataType)).toEqual([
      'NUMERIC',
      'CATEGORICAL',
    ])
    expect(sink.stats()).toEqual({ delivered: 2, failed: 0, retries: 0, skipped: 1 })
  })

  it('on retry re-sends only the scores not yet acknowledged, with the same ids', async () => {
    const env = { LANGFUSE_BASE_URL: server.baseUrl, LANGFUSE_PUBLIC_KEY: 'pk', LANGFUSE_SECRET_KEY: 'sk' }
    const sink = createLangfuseScoreSink({ ...langfuseFromEnv({}, env), sleep })
    const records = ['a', 'b', 'c'].map((scorerId) => scoreRecordFixture({ scorerId }))
    server.answerNext(200, 500)
    await sink.deliver(records)
    const sent = server.requests.map((r) => {
      const body = r.json as { id: string; metadata: { scorerId: string } }
      return `${body.metadata.scorerId}:${r.status}:${body.id === langfuseScoreId(records.find((x) => x.scorerId === body.metadata.scorerId)!)}`
    })
    expect(sent).toEqual(['a:200:true', 'b:500:true', 'b:200:true', 'c:200:true'])
    expect(sink.stats()).toEqual({ delivered: 3, failed: 0, retries: 1, skipped: 0 })
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
