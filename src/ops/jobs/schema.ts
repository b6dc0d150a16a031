import { z } from 'zod'
import { algorithmInfo } from '../hash/hash.ts'
import { hashAlgorithmParam, hashBody } from '../hash/schema.ts'
import { jsonDiffBody } from '../json/diff/schema.ts'
import { formatBody } from '../json/format/schema.ts'
import { patchBody } from '../json/patch/schema.ts'

// A job's params are the body of the operation's synchronous endpoint, validated by the same schema; the
// hash endpoint's path parameter joins its body.
const hashParams = hashBody.extend({
  algorithm: hashAlgorithmParam
    .min(1)
    .describe(
      'The hash algorithm, as in the path of POST /v1/hash/{algorithm} (see GET /v1/hash/algorithms)',
    ),
})

const job = <O extends string, P extends z.ZodType>(operation: O, params: P, endpoint: string) =>
  z.strictObject({
    operation: z.literal(operation),
    params: params.describe(`The body of ${endpoint}, with the same fields, defaults and limits`),
  })

export const jobBody = z.discriminatedUnion('operation', [
  job('json.diff', jsonDiffBody, 'POST /v1/json/diff'),
  job('json.format', formatBody, 'POST /v1/json/format (JSON body)'),
  job('json.patch', patchBody, 'POST /v1/json/patch'),
  job('hash', hashParams, 'POST /v1/hash/{algorithm} (JSON body), plus `algorithm`'),
])

export type JobBody = z.output<typeof jobBody>

// What the synchronous endpoint refuses before it runs anything is refused at submission too.
export function checkJobParams(body: JobBody): void {
  if (body.operation === 'hash') algorithmInfo(body.params.algorithm)
}
