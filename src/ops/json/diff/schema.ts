import { z } from 'zod'
import { DIFF_OUTPUTS } from './diff.ts'
import { MAX_DEPTH } from './keys.ts'

// The request body of /v1/json/diff: validated by the route on the event loop, or by the worker when a large
// body is handed to the pool unparsed (src/lib/raw-json.ts).
// z.unknown() rather than z.json(): zod checks JSON recursively and would overflow on deep input,
// which the operation refuses with a clear ERR_VALIDATION instead.
const document = (side: string) =>
  z.unknown().describe(`The ${side} JSON document: any JSON value, nested at most ${MAX_DEPTH} levels`)

export const jsonDiffBody = z.strictObject({
  left: document('original'),
  right: document('changed'),
  array_key: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe(
      'Object field that identifies array items (e.g. "id"): items with equal values are paired and diffed ' +
        'field by field. Items without it, and all items when it is absent, are matched by their whole content.',
    ),
  detect_moves: z
    .boolean()
    .default(true)
    .describe('Report array items that changed position as moves instead of a removal plus an addition'),
  output: z
    .enum(DIFF_OUTPUTS)
    .default('delta')
    .describe('Which representations to return: the jsondiffpatch delta, the RFC 6902 patch, or both'),
})

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
