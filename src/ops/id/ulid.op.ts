import { defineOp } from '../define.ts'
import { BODY_PARSE_COST, bounded } from '../worst-case.ts'
import { ulidBody, ulidResult } from './schema.ts'
import { generateUlids } from './ulid.ts'

// inline up to this many (as for UUIDs)
const INLINE_ULIDS = 50

export default defineOp({
  name: 'id.ulid',
  family: 'id',
  http: {
    path: '/v1/id/ulid',
    operationId: 'generateUlids',
    summary: 'Generate ULIDs',
    description:
      'ULIDs (github.com/ulid/spec): 48 bits of Unix milliseconds and 80 random bits in 26 characters of ' +
      "Crockford's Base32, up to 1000 at once. With `monotonic`, ULIDs of the same millisecond increment the " +
      'randomness (strictly increasing within the request, as the spec describes); should 80 bits overflow ' +
      'within one millisecond (a chance of about 2^-70) the request is 422 ERR_COMPUTE_LIMIT ' +
      '{reason: "ulid_random_overflow"}, as the spec has the generation fail, and a retry succeeds.',
    errors: ['ERR_COMPUTE_LIMIT'],
  },
  body: ulidBody,
  response: ulidResult,
  run: (input) => generateUlids(input),
  cost: { ...BODY_PARSE_COST, heavy: (input) => (input.count ?? 1) > INLINE_ULIDS },
  worst: (bytes) => bounded({ count: 1000, monotonic: true }, bytes),
  examples: [
    {
      summary:
        'Three ULIDs, strictly increasing (monotonic), such as `01KB5ZV3KQ5EX1B5F8W2S9V7E3`, `…E4`, `…E5` within ' +
        'one millisecond',
      body: { count: 3, monotonic: true },
      data: { ulids: ['…', '…', '…'] },
    },
  ],
})
