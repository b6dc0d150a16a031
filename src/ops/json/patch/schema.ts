import { z } from 'zod'
import { PATCH_OPS } from './ops.ts'
import { MAX_PATCH_DEPTH } from './patch.ts'

// The request body of /v1/json/patch (and of json.patch jobs): validated by the route on the event loop, or by
// the worker when a large body is handed to the pool unparsed (src/lib/raw-json.ts).
export const patchBody = z.strictObject({
  document: z
    .unknown()
    .describe(`The JSON document to patch: any JSON value, nested at most ${MAX_PATCH_DEPTH} levels`),
  patch: z
    .array(
      z
        .unknown()
        .describe(
          `An RFC 6902 operation {op, path, from?, value?}: op is one of ${PATCH_OPS.join(', ')}; path and ` +
            'from are RFC 6901 JSON Pointers ("~1" for "/", "~0" for "~", "-" appends to an array); value is ' +
            'required by add, replace and test; from by move and copy',
        ),
    )
    .describe(
      'RFC 6902 JSON Patch, applied in order and atomically: if any operation fails, nothing is applied. ' +
        'Operations are checked by the service (not by the schema) so that a bad one is reported as ' +
        'ERR_INVALID_PATCH with its index',
    ),
})

export const patchResult = z.object({
  result: z.unknown().describe('The patched document'),
})
