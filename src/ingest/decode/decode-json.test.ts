import { describe, expect, it } from 'vitest'
import { OtlpDecodeError } from './decode-error.ts'
import { decodeOtlpJson, visitOtlpJsonRequest } from './decode-json.ts'
import { errorOf } from './testing/error-of.ts'
import { encodeJson, expectedSpans, type JsonIdStyle, rng, SpanGenerator } from './testing/generated-spans.ts'

/** One span in OTLP/JSON with `patch` merged into it. */
function spanJson(patch: Record<string, unknown>): string {
  return JSON.stringify({
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: [
              {
                traceId: '5b8efff798038103d269b633813fc60c',
                spanId: 'eee19b7ec3c1b174',
                name: 's',
                ...patch,
              },
            ],
          },
        ],
      },
    ],
  })
}

describe('decodeOtlpJson on generated requests', () => {
  for (const ids of ['hex', 'HEX', 'base64'] as JsonIdStyle[]) {
    for (const intsAsNumbers of [false, true]) {
      it(`ids as ${ids}, int64 as ${intsAsNumbers ? 'numbers' : 'strings'}: 150 random requests decode exactly`, () => {
        const gen = new SpanGenerator(rng(ids.length * 10 + Number(intsAsNumbers)))
        let spans = 0
        for (let i = 0; i < 150; i++) {
          const request = gen.request()
          const decoded = decodeOtlpJson(encodeJson(request, ids, intsAsNumbers))
          expect(decoded).toEqual(expectedSpans(request))
          spans += decoded.length
        }
        expect(spans).toBeGreaterThan(200)
      })
    }
  }
})

describe('decodeOtlpJson on the Collector example and edge cases', () => {
  it('decodes the minimal span of the conventions reference', () => {
    const text = `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"support-agent"}}]},
 "scopeSpans":[{"scope":{"name":"gen_ai"},"spans":[{
   "traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","parentSpanId":"",
   "name":"invoke_agent support","kind":1,
   "startTimeUnixNano":"1747872000123456789","endTimeUnixNano":"1747872003000000000",
   "attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}},
                 {"key":"gen_ai.usage.input_tokens","value":{"intValue":"812"}}],
   "status":{"code":1}}]}]}]}`
    expect(decodeOtlpJson(text)).toEqual([
      {
        traceId: '5b8efff798038103d269b633813fc60c',
        spanId: 'eee19b7ec3c1b174',
        parentSpanId: undefined,
        traceState: undefined,
        name: 'invoke_agent support',
        kind: 1,
        startTimeUnixNano: '1747872000123456789',
        endTimeUnixNano: '1747872003000000000',
        attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.usage.input_tokens': 812 },
        events: [],
        links: [],
        status: { code: 1 },
        resource: { 'service.name': 'support-agent' },
        scope: { name: 'gen_ai' },
      },
    ])
  })

  it('accepts base64url ids, enum names, numeric times and special doubles', () => {
    const traceId = Buffer.from('fbff'.repeat(8), 'hex').toString('base64url').padEnd(24, '=')
    const [span] = decodeOtlpJson(
      spanJson({
        traceId,
        kind: 'SPAN_KIND_CLIENT',
        status: { code: 'STATUS_CODE_ERROR', message: 'bad' },
        startTimeUnixNano: 1747872000000,
        endTimeUnixNano: '0001747872000000',
        attributes: [
          { key: 'nan', value: { doubleValue: 'NaN' } },
          { key: 'inf', value: { doubleValue: '-Infinity' } },
          { key: 'str', value: { doubleValue: '2.5' } },
          { key: 'big', value: { intValue: 2 ** 60 } },
          { key: 'bytes', value: { bytesValue: 'AAEC/w==' } },
          { key: 'none', value: {} },
          { key: 'nil' },
        ],
      }),
    )
    expect(span!.traceId).toBe('fbff'.repeat(8))
    expect(span!.kind).toBe(3)
    expect(span!.status).toEqual({ code: 2, message: 'bad' })
    expect(span!.startTimeUnixNano).toBe('1747872000000')
    expect(span!.endTimeUnixNano).toBe('1747872000000')
    expect(span!.attributes).toEqual({
      nan: Number.NaN,
      inf: Number.NEGATIVE_INFINITY,
      str: 2.5,
      big: '1152921504606846976',
      bytes: Uint8Array.from([0, 1, 2, 255]),
      none: null,
      nil: null,
    })
    expect(span!.attributes.bytes).toBeInstanceOf(Uint8Array)
    expect(Buffer.isBuffer(span!.attributes.bytes)).toBe(false)
  })

  it('accepts unpadded base64 ids (22 and 11 chars)', () => {
    const traceId = Buffer.from('0af7651916cd43dd8448eb211c80319c', 'hex')
      .toString('base64')
      .replace(/=+$/, '')
    const spanId = Buffer.from('b7ad6b7169203331', 'hex').toString('base64').replace(/=+$/, '')
    expect([traceId.length, spanId.length]).toEqual([22, 11])
    const [span] = decodeOtlpJson(spanJson({ traceId, spanId }))
    expect([span!.traceId, span!.spanId]).toEqual(['0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331'])
  })

  it('treats missing, empty and all-zero parentSpanId as a root', () => {
    for (const parentSpanId of [undefined, '', '0000000000000000', null]) {
      expect(decodeOtlpJson(spanJson({ parentSpanId }))[0]!.parentSpanId).toBeUndefined()
    }
    expect(decodeOtlpJson(spanJson({ parentSpanId: 'ABCDEF0123456789' }))[0]!.parentSpanId).toBe(
      'abcdef0123456789',
    )
  })

  it('rejects bad ids with invalid_id and the path of the field', () => {
    for (const patch of [
      { traceId: 'xyz' },
      { traceId: 'g'.repeat(32) },
      { spanId: 'eee19b7ec3c1b17' },
      { spanId: 42 },
      { traceId: undefined },
      { parentSpanId: '!!!!!!!!!!!!' },
    ]) {
      const error = errorOf(() => decodeOtlpJson(spanJson(patch)))
      expect(error.code, JSON.stringify(patch)).toBe('invalid_id')
      expect(error.path).toMatch(
        /^resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.(traceId|spanId|parentSpanId)$/,
      )
    }
  })

  it('rejects fields of the wrong type with invalid_field and a path', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 5 }, 'name'],
      [{ startTimeUnixNano: '-5' }, 'startTimeUnixNano'],
      [{ startTimeUnixNano: '123456789012345678901' }, 'startTimeUnixNano'],
      [{ startTimeUnixNano: 1.5 }, 'startTimeUnixNano'],
      [{ kind: 'CLIENT' }, 'kind'],
      [{ kind: '__proto__' }, 'kind'],
      [{ kind: 'toString' }, 'kind'],
      [{ status: { code: 'constructor' } }, 'status.code'],
      [{ attributes: {} }, 'attributes'],
      [{ attributes: [{ key: 'a', value: { intValue: 'ten' } }] }, 'attributes'],
      [{ attributes: [{ key: 'a', value: { intValue: 1.5 } }] }, 'attributes'],
      [{ attributes: [{ key: 'a', value: { boolValue: 'true' } }] }, 'attributes'],
      [{ attributes: [{ key: 'a', value: { bytesValue: '%%%' } }] }, 'attributes'],
      [{ attributes: [{ value: { stringValue: 'x' } }] }, 'attributes[0].key'],
      [{ events: [{ timeUnixNano: 'soon' }] }, 'events[0].timeUnixNano'],
      [{ links: [{ traceId: 'ab', spanId: 'cd' }] }, 'links[0].traceId'],
      [{ status: 'ok' }, 'status'],
    ]
    for (const [patch, field] of cases) {
      const error = errorOf(() => decodeOtlpJson(spanJson(patch)))
      expect(['invalid_field', 'invalid_id'], JSON.stringify(patch)).toContain(error.code)
      expect(error.path).toBe(`resourceSpans[0].scopeSpans[0].spans[0].${field}`)
    }
  })

  it('rejects non-JSON with invalid_json and an offset, and non-requests with invalid_field', () => {
    expect(errorOf(() => decodeOtlpJson('{"resourceSpans": [1,]}')).code).toBe('invalid_json')
    // V8 names a position for some syntax errors only.
    const error = errorOf(() => decodeOtlpJson('{"a"'))
    expect(error.code).toBe('invalid_json')
    expect(error.offset).toBe(4)
    expect(errorOf(() => decodeOtlpJson('[]')).code).toBe('invalid_field')
    // A top level that is not a request is named as such, not as a field inside it.
    for (const [text, got] of [
      ['[{"resourceSpans": []}]', 'an array'],
      ['42', 'a number'],
      ['null', 'null'],
      ['"x"', 'a string'],
    ]) {
      const topLevel = errorOf(() => decodeOtlpJson(text!))
      expect(topLevel.path).toBeUndefined()
      expect(topLevel.message).toBe(
        `expected an ExportTraceServiceRequest object at the top level, got ${got}`,
      )
    }
    expect(errorOf(() => decodeOtlpJson('{"resourceSpans": {}}')).code).toBe('invalid_field')
    expect(errorOf(() => decodeOtlpJson('{"resourceSpans": [{"scopeSpans": [{"spans": [7]}]}]}')).path).toBe(
      'resourceSpans[0].scopeSpans[0].spans[0]',
    )
  })

  it('keeps int64 beyond 2^53 exact as strings and rejects values outside int64', () => {
    const attrs = (value: unknown) => spanJson({ attributes: [{ key: 'n', value: { intValue: value } }] })
    expect(decodeOtlpJson(attrs('9223372036854775807'))[0]!.attributes.n).toBe('9223372036854775807')
    expect(decodeOtlpJson(attrs('-9223372036854775808'))[0]!.attributes.n).toBe('-9223372036854775808')
    expect(decodeOtlpJson(attrs('-17'))[0]!.attributes.n).toBe(-17)
    expect(errorOf(() => decodeOtlpJson(attrs('9223372036854775808'))).code).toBe('invalid_field')
    expect(errorOf(() => decodeOtlpJson(attrs(1e300))).code).toBe('invalid_field')
  })

  it('rejects a hostile 1 MB bytesValue (spaces then a bad char) at once, without regex backtracking', () => {
    const bytesValue = `${' '.repeat(1_000_000)}!`
    const error = errorOf(() =>
      decodeOtlpJson(spanJson({ attributes: [{ key: 'b', value: { bytesValue } }] })),
    )
    expect(error.code).toBe('invalid_field')
  })

  it('limits nesting depth with too_deep', () => {
    let value: unknown = { stringValue: 'x' }
    for (let i = 0; i < 200; i++) value = { arrayValue: { values: [value] } }
    const error = errorOf(() => decodeOtlpJson(spanJson({ attributes: [{ key: 'deep', value }] })))
    expect(error.code).toBe('too_deep')
  })

  it('ignores unknown fields and a leading BOM', () => {
    const [span] = decodeOtlpJson(`\ufeff${spanJson({ somethingNew: { a: 1 }, droppedEventsCount: 3 })}`)
    expect(span!.name).toBe('s')
  })

  it('normalizes an already parsed request', () => {
    const seen: string[] = []
    visitOtlpJsonRequest(JSON.parse(spanJson({})), (span) => seen.push(span.spanId))
    expect(seen).toEqual(['eee19b7ec3c1b174'])
  })
})

describe('decodeOtlpJson on mutated requests', () => {
  const JUNK: unknown[] = [
    null,
    true,
    0,
    -1.5,
    2 ** 70,
    '',
    'x',
    'NaN',
    '1',
    '__proto__',
    'toString',
    [],
    [1, 'a'],
    {},
    { stringValue: 3 },
    { key: 1 },
    { key: '__proto__', value: { stringValue: 'p' } },
  ]

  /** Every object/array node of a parsed value, with a way to replace it. */
  function slots(root: unknown): ((v: unknown) => void)[] {
    const out: ((v: unknown) => void)[] = []
    const walk = (node: unknown) => {
      if (Array.isArray(node)) {
        node.forEach((child, i) => {
          out.push((v) => {
            node[i] = v
          })
          walk(child)
        })
      } else if (node !== null && typeof node === 'object') {
        for (const [k, child] of Object.entries(node)) {
          out.push((v) => {
            ;(node as Record<string, unknown>)[k] = v
          })
          walk(child)
        }
      }
    }
    walk(root)
    return out
  }

  it('any node replaced by junk: a well-typed decode or OtlpDecodeError, nothing else', () => {
    const gen = new SpanGenerator(rng(21))
    const random = rng(22)
    let errors = 0
    let decodes = 0
    for (let i = 0; i < 400; i++) {
      const request = JSON.parse(encodeJson(gen.request(), i % 2 === 0 ? 'hex' : 'base64'))
      const targets = slots(request)
      if (targets.length === 0) continue
      for (let k = 0; k < 1 + Math.floor(random() * 3); k++) {
        targets[Math.floor(random() * targets.length)]!(JUNK[Math.floor(random() * JUNK.length)])
      }
      try {
        visitOtlpJsonRequest(request, (span) => {
          if (!/^[0-9a-f]{32}$/.test(span.traceId) || !/^[0-9a-f]{16}$/.test(span.spanId)) {
            expect.fail(`bad ids ${span.traceId} ${span.spanId}`)
          }
          if (typeof span.name !== 'string' || !/^[0-9]+$/.test(span.startTimeUnixNano)) {
            expect.fail('bad span')
          }
          if (typeof span.kind !== 'number' || typeof span.status.code !== 'number') expect.fail('bad enum')
          if (Object.getPrototypeOf(span.attributes) !== Object.prototype) expect.fail('prototype replaced')
        })
        decodes++
      } catch (error) {
        if (!(error instanceof OtlpDecodeError)) throw error
        errors++
      }
    }
    expect(errors).toBeGreaterThan(50)
    expect(decodes).toBeGreaterThan(50)
  })

  it('truncated JSON text at every offset: invalid_json, never another error', () => {
    const text = encodeJson(new SpanGenerator(rng(23)).request())
    for (let cut = 0; cut < text.length; cut += 7) {
      expect(errorOf(() => decodeOtlpJson(text.slice(0, cut))).code).toBe('invalid_json')
    }
  })
})
