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
