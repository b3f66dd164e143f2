import type { JSONSchema7 } from '@ai-sdk/provider'
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { asSchema } from 'ai'

/**
 * The schema a prompt step's judge answers with: a zod 4 schema, any Standard Schema that can
 * produce JSON Schema (`~standard.jsonSchema`), or a plain JSON Schema object.
 */
export type OutputSchema<T = unknown> = StandardSchemaV1<unknown, T> | JSONSchema7

/** The value a schema describes: the Standard Schema output type, `any` for a plain JSON Schema. */
export type InferOutputSchema<S> = S extends StandardSchemaV1<unknown, infer T> ? T : any

/** An output schema reduced to what the judge needs: its JSON Schema and a validator. */
export interface ResolvedOutputSchema {
  jsonSchema: JSONSchema7
  validate(value: unknown): Promise<{ success: true; value: unknown } | { success: false; error: Error }>
}

interface StandardJsonConverter {
  output(options: { target: string }): Record<string, unknown>
}

const cache = new WeakMap<object, ResolvedOutputSchema>()

/** Turns an `outputSchema` into a JSON Schema (draft-07, as Mastra sends it) and a validator. */
export function resolveOutputSchema(schema: OutputSchema): ResolvedOutputSchema {
  const cached = cache.get(schema)
  if (cached) return cached
  const resolved = isStandardSchema(schema) ? fromStandardSchema(schema) : fromJsonSchema(schema)
  cache.set(schema, resolved)
  return resolved
}

function isStandardSchema(schema: OutputSchema): schema is StandardSchemaV1 {
  return typeof schema === 'object' && schema !== null && '~standard' in schema
}

function fromStandardSchema(schema: StandardSchemaV1): ResolvedOutputSchema {
  const props = schema['~standard'] as StandardSchemaV1.Props & { jsonSchema?: StandardJsonConverter }
  let jsonSchema: JSONSchema7
  if (props.jsonSchema) {
    jsonSchema = props.jsonSchema.output({ target: 'draft-07' }) as JSONSchema7
  } else if (props.vendor === 'zod') {
    // zod 3 has no Standard JSON Schema converter; the ai SDK converts it.
    jsonSchema = asSchema(schema as never).jsonSchema as JSONSchema7
  } else {
    throw new TypeError(
      `outputSchema from '${props.vendor}' cannot be turned into JSON Schema: use zod 4, a Standard JSON Schema, or a JSON Schema object`,
    )
  }
  return {
    jsonSchema,
    async validate(value) {
      const result = await props.validate(value)
      if (result.issues) {
        const detail = result.issues.map((issue) => formatIssue(issue)).join('; ')
        return { success: false, error: new TypeError(`Judge answer does not match outputSchema: ${detail}`) }
      }
      return { success: true, value: result.value }
    },
  }
}

function formatIssue(issue: StandardSchemaV1.Issue): string {
  const path = (issue.path ?? []).map((p) => (typeof p === 'object' ? String(p.key) : String(p))).join('.')
  return path ? `${path}: ${issue.message}` : issue.message
}

/** A plain JSON Schema: the judge's answer is checked for its top-level type and required keys only. */
function fromJsonSchema(schema: JSONSchema7): ResolvedOutputSchema {
  return {
    jsonSchema: schema,
    async validate(value) {
      const type = schema.type
      if (type === 'object') {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          return {
            success: false,
            error: new TypeError('Judge answer does not match outputSchema: not an object'),
          }
        }
        const missing = (schema.required ?? []).filter((key) => !(key in value))
        if (missing.length > 0) {
          return {
            success: false,
            error: new TypeError(`Judge answer does not match outputSchema: missing ${missing.join(', ')}`),
          }
        }
      } else if (type === 'array' && !Array.isArray(value)) {
        return {
          success: false,
          error: new TypeError('Judge answer does not match outputSchema: not an array'),
        }
      }
      return { success: true, value }
    },
  }
}
