import { z } from 'zod'
import { DIALECTS, MAX_INSTANCE_DEPTH, MAX_SCHEMA_DEPTH } from './types.ts'

// The request and response of /v1/json/validate. The schema and instances are JSON values parsed
// losslessly (numbers keep their text): z.unknown(), not z.json(), which would recurse and overflow on deep
// input that the op refuses with a clear error instead.

export const validateBody = z.strictObject({
  schema: z
    .unknown()
    .describe(
      'The JSON Schema: an object or a boolean, its dialect chosen by `$schema` (2020-12, 2019-09, draft-07, ' +
        `draft-06, draft-04). It may bundle resources with \`$id\` and \`$defs\`; remote references are never ` +
        `fetched. Nested at most ${MAX_SCHEMA_DEPTH} levels`,
    ),
  instance: z
    .unknown()
    .optional()
    .describe(
      `The JSON value to validate (send this or \`instances\`), nested at most ${MAX_INSTANCE_DEPTH} levels`,
    ),
  instances: z
    .array(z.unknown().describe('A JSON value to validate'))
    .optional()
    .describe("Many JSON values to validate against the schema, compiled once (up to the plan's cap)"),
  format_assertion: z
    .boolean()
    .default(false)
    .describe(
      'Check `format` (date-time, email, uri, ...) as an assertion; by default it is only an annotation',
    ),
  dialect: z
    .enum(DIALECTS)
    .default('2020-12')
    .describe('The dialect of a schema without `$schema` (one with it is read in the dialect it names)'),
})

const outputUnit = z
  .object({
    instance_location: z
      .string()
      .describe('JSON Pointer to the failing value in the instance ("" is the whole)'),
    keyword_location: z
      .string()
      .describe('JSON Pointer through the schema as evaluated, `$ref` hops included, to the failing keyword'),
    absolute_keyword_location: z
      .string()
      .describe(
        "The failing keyword's URI: its schema resource's `$id` and a JSON Pointer fragment (a bare fragment " +
          'for a schema without `$id`)',
      ),
    message: z.string().describe('What failed, in English'),
  })
  .describe('An output unit of the JSON Schema "basic" output format')

const instanceResult = z.object({
  valid: z.boolean().describe('Whether the instance is valid against the schema'),
  errors: z.array(outputUnit).describe("Why it is not: the failing keywords, up to the plan's cap"),
  errors_omitted: z.number().int().describe('Output units past the cap, counted and not listed'),
})

export const validateResult = z.union([
  instanceResult.describe('The answer for `instance`'),
  z
    .object({
      valid: z.boolean().describe('Whether every instance is valid'),
      results: z.array(instanceResult).describe('One result per instance, in order'),
      errors_omitted: z.number().int().describe('Output units past the cap, over all the instances'),
    })
    .describe('The answer for `instances`'),
])
