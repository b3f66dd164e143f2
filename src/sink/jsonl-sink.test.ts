import { PassThrough, Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createJsonlSink } from './jsonl-sink.ts'
import { scoreRecordFixture } from './testing/score-record-fixture.ts'

describe('createJsonlSink', () => {
  it('writes one line per score with the `tracescore score` shape', async () => {
    const stream = new PassThrough()
    const chunks: string[] = []
    stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')))
    const sink = createJsonlSink({ stream })
    await sink.deliver([
      scoreRecordFixture(),
      scoreRecordFixture({
        scorerId: 'judge',
        agentName: undefined,
        score: undefined,
        reason: undefined,
        error: { type: 'JudgeError', message: 'timeout' },
      }),
    ])
    const lines = chunks.join('').split('\n')
    expect(lines.at(-1)).toBe('')
    expect(lines.slice(0, -1).map((l) => JSON.parse(l))).toEqual([
      {
        traceId: '5b8efff798038103d269b633813fc60c',
        spanId: 'eee19b7ec3c1b174',
        agentName: 'support-agent',
        scorer: 'task-success',
        score: 0.82,
        reason: 'Resolved the order query in 2 tool calls',
      },
      {
        traceId: '5b8efff798038103d269b633813fc60c',
        spanId: 'eee19b7ec3c1b174',
        agentName: null,
        scorer: 'judge',
        score: null,
        reason: null,
        error: { type: 'JudgeError', message: 'timeout' },
      },
    ])
    expect(sink.stats()).toMatchObject({ delivered: 2, failed: 0 })
  })

  it('resolves only after a slow stream flushed, and rejects on a stream error', async () => {
    const written: string[] = []
    let release: () => void = () => {}
    const slow = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _enc, done) {
        written.push(chunk.toString())
        release = done
      },
    })
    const sink = createJsonlSink({ stream: slow })
    let settled = false
    const delivery = sink.deliver([scoreRecordFixture()]).then(() => {
      settled = true
    })
    await new Promise((r) => setImmediate(r))
    expect(written).toHaveLength(1)
    expect(settled).toBe(false)
    release()
    await delivery
    expect(settled).toBe(true)

    const broken = new Writable({
      write(_chunk, _enc, done) {
        done(new Error('EPIPE'))
      },
    })
    broken.on('error', () => {})
    const failing = createJsonlSink({ stream: broken })
    await expect(failing.deliver([scoreRecordFixture()])).rejects.toThrow(/EPIPE/)
    expect(failing.stats().failed).toBe(1)
  })
})
