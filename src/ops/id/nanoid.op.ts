import { defineOp } from '../define.ts'
import { BODY_PARSE_COST, bounded } from '../worst-case.ts'
import { generateNanoids } from './nanoid.ts'
import { nanoidBody, nanoidResult } from './schema.ts'

// inline up to this many symbols in all (measured: 1,000 nanoids of 255 symbols take 105 ms)
const INLINE_NANOID_SYMBOLS = 2_000

export default defineOp({
  name: 'id.nanoid',
  family: 'id',
  http: {
    path: '/v1/id/nanoid',
    operationId: 'generateNanoids',
    summary: 'Generate Nano IDs',
    description:
      'Random ids of `size` characters (default 21) from `alphabet` (default the URL-safe A-Za-z0-9_-), up ' +
      'to 1000 at once. Every character of the alphabet is equally likely (no modulo bias). An alphabet with ' +
      'a repeated character is 400 ERR_VALIDATION; one with a lone surrogate, 400 ERR_INVALID_ENCODING.',
    errors: ['ERR_INVALID_ENCODING'],
  },
  body: nanoidBody,
  response: nanoidResult,
  run: (input) => generateNanoids(input),
  cost: {
    ...BODY_PARSE_COST,
    heavy: (input) => (input.count ?? 1) * (input.size ?? 21) > INLINE_NANOID_SYMBOLS,
  },
  worst: (bytes) => bounded({ size: 255, count: 1000 }, bytes),
  examples: [
    {
      summary: 'Nano IDs from a custom alphabet, such as `ecb643285881`',
      body: { size: 12, alphabet: '0123456789abcdef', count: 2 },
      data: { ids: ['…', '…'] },
    },
  ],
})
