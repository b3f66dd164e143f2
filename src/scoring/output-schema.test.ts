import type { StandardSchemaV1 } from '@standard-schema/spec'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createScorer } from './create-scorer.ts'
import { resolveOutputSchema } from './output-schema.ts'
import { scriptedJudge } from './testing/scripted-judge.ts'

describe('resolveOutputSchema', () => {
  it('zod 4: draft-07 JSON Schema as Mastra sends it, and zod validation', async () => {
    const schema = resolveOutputSchema(
      z.object({ n: z.number().min(0).max(1), tags: z.array(z.string()).optional() }),
    )
    expect(schema.jsonSchema).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        n: { type: 'number', minimum: 0, maximum: 1 },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['n'],
      additionalProperties: false,
    })
    expect(await schema.validate({ n: 0.5 })).toEqual({ success: true, value: { n: 0.5 } })
    const bad = await schema.validate({ n: 2 })
    expect(bad.success).toBe(false)
    expect(!bad.success && bad.error.message).toMatch(/^Judge answer does not match outputSchema: n: /)
  })

  it('a plain JSON Schema object is sent as is; the answer is checked for type and required keys', async () => {
    const json = {
      type: 'object' as const,
      properties: { ok: { type: 'boolean' as const } },
      required: ['ok'],
    }
    const schema = resolveOutputSchema(json)
    expect(schema.jsonSchema).toBe(json)
    expect((await schema.validate({ ok: true })).success).toBe(true)
    expect((await schema.validate({})).success).toBe(false)
    expect((await schema.validate([1])).success).toBe(false)
  })

  it('any Standard JSON Schema (not only zod): its output JSON Schema and its validator are used', async () => {
    const custom = {
      '~standard': {
        version: 1 as const,
        vendor: 'custom',
        validate: (v: unknown) =>
          typeof (v as { n?: unknown }).n === 'number'
            ? { value: v as { n: number } }
            : { issues: [{ message: 'n must be a number', path: ['n'] }] },
        jsonSchema: {
          input: () => ({ type: 'object' }),
          output: (options: { target: string }) => ({ type: 'object', target: options.target }),
        },
      },
    }
    const schema = resolveOutputSchema(custom)
    expect(schema.jsonSchema).toEqual({ type: 'object', target: 'draft-07' })
    expect(await schema.validate({ n: 1 })).toEqual({ success: true, value: { n: 1 } })
    const bad = await schema.validate({ n: 'x' })
    expect(!bad.success && bad.error.message).toBe(
      'Judge answer does not match outputSchema: n: n must be a number',
    )
  })

  it('a Standard Schema without JSON Schema support is refused with a clear message', () => {
    const opaque: StandardSchemaV1<unknown, { a: number }> = {
      '~standard': { version: 1, vendor: 'opaque', validate: (v) => ({ value: v as { a: number } }) },
    }
    expect(() => resolveOutputSchema(opaque)).toThrow(
      /outputSchema from 'opaque' cannot be turned into JSON Schema/,
    )
  })

  it('a JSON Schema outputSchema drives a prompt step end to end', async () => {
    const judge = scriptedJudge(['{"verdict":"pass"}'])
    const result = await createScorer({
      id: 's',
      description: 'd',
      judge: { model: judge.model, instructions: 'i' },
    })
      .analyze({
        description: 'a',
        outputSchema: { type: 'object', properties: { verdict: { type: 'string' } }, required: ['verdict'] },
        createPrompt: () => 'p',
      })
      .generateScore(({ results }) => (results.analyzeStepResult.verdict === 'pass' ? 1 : 0))
      .run({ output: 'o' })
    expect(result.score).toBe(1)
    expect(judge.userText(0)).toContain(
      '{"type":"object","properties":{"verdict":{"type":"string"}},"required":["verdict"]}',
    )
  })
})
