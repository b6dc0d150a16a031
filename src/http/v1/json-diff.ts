import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { jsonDiffBody } from '../../ops/json/diff/schema.ts'
import { MAX_DEPTH } from '../../ops/json/diff/types.ts'
import { defineRoute } from '../define-route.ts'

const patchOp = z.discriminatedUnion('op', [
  z.object({ op: z.literal('add'), path: z.string(), value: z.unknown() }),
  z.object({ op: z.literal('remove'), path: z.string() }),
  z.object({ op: z.literal('replace'), path: z.string(), value: z.unknown() }),
  z.object({ op: z.literal('move'), from: z.string(), path: z.string() }),
])

const count = z.number().int().min(0)

export const jsonDiffResult = z.object({
  equal: z.boolean().describe('true when the documents are equal as JSON (key order does not matter)'),
  delta: z
    .unknown()
    .optional()
    .describe('jsondiffpatch delta format; {} when equal. Present unless output is "json_patch"'),
  json_patch: z
    .array(patchOp)
    .optional()
    .describe(
      'RFC 6902 patch: applied to left it gives right, always; [] when equal. Present unless output is "delta"',
    ),
  stats: z
    .object({ added: count, removed: count, changed: count, moved: count })
    .describe('Delta leaves by kind: a whole added or removed subtree counts once, moves count array items'),
})

export async function jsonDiffRoutes(app: FastifyInstance): Promise<void> {
  defineRoute(app, {
    method: 'POST',
    url: '/v1/json/diff',
    security: 'apiKey',
    family: 'json',
    operationId: 'jsonDiff',
    summary: 'Diff two JSON documents',
    description:
      'Compares `left` with `right` and returns a jsondiffpatch delta and/or an RFC 6902 JSON Patch. ' +
      'Every patch is verified by applying it to `left` before it is returned; in the unlikely case that ' +
      'the patch derived from the delta does not reproduce `right`, a coarser patch (whole differing ' +
      'arrays and values replaced) is returned instead. Keys such as "__proto__" and "constructor" are ' +
      `ordinary keys. Documents nested deeper than ${MAX_DEPTH} levels are refused with ERR_VALIDATION. ` +
      'Numbers are exact: compared by exact decimal value (1, 1.0 and 1e0 are equal; 12345678901234567890 and ' +
      '12345678901234567891 are not) and written in the delta and the patch exactly as sent.',
    tags: ['JSON'],
    op: 'json.diff',
    body: jsonDiffBody,
    response: jsonDiffResult,
  })
}
