import { z } from 'zod'
import { defineOp } from '../define.ts'
import { fill } from '../worst-case.ts'
import { hmac } from './hmac.ts'
import { algorithmField, hmacBody, hmacResult } from './schema.ts'

export default defineOp({
  name: 'hmac',
  family: 'hmac',
  http: {
    path: '/v1/hmac/:algorithm',
    params: z.object({ algorithm: algorithmField }),
    operationId: 'hmac',
    summary: 'Compute an HMAC',
    description:
      'RFC 2104 HMAC over the bytes of input with the bytes of key. Text is taken as UTF-8, never normalized.',
    errors: ['ERR_UNSUPPORTED_ALGORITHM', 'ERR_INVALID_ENCODING'],
  },
  // the algorithm joins the body from the path, inline or on the worker
  with: (params: { algorithm: string }) => ({ algorithm: params.algorithm }),
  body: hmacBody,
  response: hmacResult,
  run: hmac,
  cost: { worst: 'HMAC-SHA-512 of ASCII text', usPerKiB: 7 },
  worst: (bytes) => ({ algorithm: 'sha512', input: fill('x', bytes), key: 'k' }),
  warm: [{ algorithm: 'sha256', input: 'x'.repeat(4096), key: 'k' }],
  examples: [
    {
      summary: 'Compute an HMAC (RFC 4231 test case 2)',
      path: '/v1/hmac/sha256',
      body: { input: 'what do ya want for nothing?', key: 'Jefe' },
      data: {
        algorithm: 'sha256',
        digest: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
        output_encoding: 'hex',
      },
    },
  ],
})
