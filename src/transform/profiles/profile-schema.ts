import { z } from 'zod'
import { CONVENTIONS } from '../../model/index.ts'
import { BUILTIN_READER_NAMES } from './builtin-names.ts'
import { jsonPathProblem } from './json-path.ts'
import { patternProblem } from './safe-pattern.ts'

/**
 * The data of a producer profile (`docs/producer-profiles.md`): which spans a producer's
 * instrumentation wrote, what each is to an agent run, and where each field of a run lives. Plain
 * data (JSON or a config object), validated here so a bad profile fails at start-up naming its key.
 */

const scalar = z.union([z.string(), z.number(), z.boolean()])

/** Conditions on one span; every one given must hold. */
const matcherFields = z
  .object({
    /** The instrumentation scope's name, exactly. */
    scope: z.string().min(1).optional(),
    /** The span's name, exactly. */
    spanName: z.string().min(1).optional(),
    /** A regular expression the span's name must contain a match of (checked by `safe-pattern.ts`). */
    spanNamePattern: z
      .string()
      .min(1)
      .max(200)
      .superRefine((pattern, context) => {
        const problem = patternProblem(pattern)
        if (problem) context.addIssue({ code: 'custom', message: problem })
      })
      .optional(),
    /** Attributes that must hold exactly these values. */
    equals: z.record(z.string().min(1), scalar).optional(),
    /** Attributes that must be present. */
    exists: z.array(z.string().min(1)).min(1).optional(),
  })
  .strict()

/** A span matcher: conditions that must all hold, or `anyOf` a list of such conditions. */
export const matcherSchema = z.union([
  z.object({ anyOf: z.array(matcherFields).min(1).max(32) }).strict(),
  matcherFields,
])

/** How a field's value is parsed (`docs/producer-profiles.md`, "Message shapes"). */
export const SHAPES = [
  'string',
  'value',
  'text',
  'messages',
  'prompt',
  'provider-request',
  'provider-response',
  'openinference',
  'indexed',
] as const
export type Shape = (typeof SHAPES)[number]

const sourceObject = z
  .object({
    /** The attribute's key (for `openinference` / `indexed`: the key prefix of the flattened messages). */
    attribute: z.string().min(1),
    /** A JSON path into the attribute's JSON value: `$.a.b[0]`, `$.a[*].b`, `$['a.b']`. */
    path: z
      .string()
      .min(1)
      .max(200)
      .superRefine((path, context) => {
        const problem = jsonPathProblem(path)
        if (problem) context.addIssue({ code: 'custom', message: problem })
      })
      .optional(),
    /**
     * Also look on the spans above, nearest first (up to 32), where the span lacks it: a
     * conversation id kept on the request span around the run. Read only for a run's identity
     * and input (the fields the transform reads with the trace at hand).
     */
    ancestors: z.boolean().optional(),
    /** Read the attribute from the first event of this name instead of from the span. */
    event: z.string().min(1).optional(),
    shape: z.enum(SHAPES).optional(),
    /**
     * The attribute holds the field in a form that cannot be read back (text of every message
     * joined, say): the field is left unread, with the note `<field> of span <id> recorded only
     * as <notRead> (<attribute>), not read`.
     */
    notRead: z.string().min(1).max(100).optional(),
  })
  .strict()

/** Where a field lives: an attribute key, a source object, or several tried in order. */
/** A text read from the span's name: the first group of a (checked) pattern, e.g. `^svc\\.([^.]+)\\.`. */
const spanNameSource = z
  .object({
    spanName: z
      .string()
      .min(1)
      .max(200)
      .superRefine((pattern, context) => {
        const problem =
          patternProblem(pattern) ?? (/\((?!\?)/.test(pattern) ? undefined : 'needs a group ( ) for the text')
        if (problem) context.addIssue({ code: 'custom', message: problem })
      }),
  })
  .strict()

export const sourceSchema = z.union([
  z.string().min(1),
  sourceObject,
  spanNameSource,
  z
    .array(z.union([z.string().min(1), sourceObject, spanNameSource]))
    .min(1)
    .max(8),
])

const fieldsSchema = z
  .object({
    agent: z
      .object({
        name: sourceSchema.optional(),
        id: sourceSchema.optional(),
        conversationId: sourceSchema.optional(),
        input: sourceSchema.optional(),
        output: sourceSchema.optional(),
        instructions: sourceSchema.optional(),
      })
      .strict()
      .optional(),
    model: z.object({ prompt: sourceSchema.optional(), answer: sourceSchema.optional() }).strict().optional(),
    tool: z
      .object({
        id: sourceSchema.optional(),
        name: sourceSchema.optional(),
        arguments: sourceSchema.optional(),
        result: sourceSchema.optional(),
        error: sourceSchema.optional(),
      })
      .strict()
      .optional(),
  })
  .strict()

/** A span that failed though its status is not ERROR. */
const statusSchema = z
  .object({
    /** An `exception` event means the span failed; its `exception.message` is the error. */
    exceptionEvent: z.boolean().optional(),
    /** This attribute present (or holding `equals`) means the span failed. */
    attribute: z
      .object({ key: z.string().min(1), equals: scalar.optional() })
      .strict()
      .optional(),
    /** The error text, where not the exception's message. */
    message: sourceSchema.optional(),
  })
  .strict()

/** One producer profile. */
export const profileSchema = z
  .object({
    /** For messages and `inspect`: who wrote the spans. */
    name: z.string().min(1).max(100),
    /** A built-in reader whose reading this profile changes only where it says. */
    extends: z.enum(BUILTIN_READER_NAMES).optional(),
    /** The convention runs read by this profile are filed under (default: the extended one's, else `generic`). */
    convention: z.enum(CONVENTIONS).optional(),
    /** The spans this profile reads (default with `extends`: the spans the built-in reader reads). */
    owns: matcherSchema.optional(),
    roles: z
      .object({
        agent: matcherSchema.optional(),
        model: matcherSchema.optional(),
        tool: matcherSchema.optional(),
        step: matcherSchema.optional(),
        /** Spans of no role, where the extended reader would give them one. */
        other: matcherSchema.optional(),
      })
      .strict()
      .optional(),
    fields: fieldsSchema.optional(),
    status: statusSchema.optional(),
  })
  .strict()
  .superRefine((profile, context) => {
    if (!profile.owns && !profile.extends)
      context.addIssue({
        code: 'custom',
        path: ['owns'],
        message: 'required unless the profile extends a built-in reader',
      })
  })

/** The `conventions` key of the configuration: profiles, tried in order before the built-in readers. */
export const profilesSchema = z.array(profileSchema).max(64)

/** A producer profile as written. */
export type Profile = z.output<typeof profileSchema>
export type SpanMatcher = z.output<typeof matcherSchema>
export type FieldSource = z.output<typeof sourceSchema>
