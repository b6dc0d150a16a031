import { defineOp } from '../define.ts'
import { tokenOf } from '../worst-case.ts'
import { inspectJwt } from './inspect.ts'
import { JWT_IO_SAMPLE } from './samples.ts'
import { jwtInspectBody, jwtInspectResult } from './schema.ts'

export default defineOp({
  name: 'jwt.inspect',
  family: 'jwt',
  http: {
    path: '/v1/jwt/inspect',
    operationId: 'inspectJwt',
    summary: 'Decode a token and explain its times and risks (never verifies)',
    description:
      'Everything decode answers, plus the iat/nbf/exp claims as ISO 8601 and relative to `at` (default ' +
      'now), whether the token is expired or not yet valid, and warnings with stable codes (alg none, ' +
      'no exp, a lifetime over a year, a key in the header, ...). Nothing is verified.',
    errors: ['ERR_INVALID_JWT'],
  },
  body: jwtInspectBody,
  response: jwtInspectResult,
  run: inspectJwt,
  cost: { worst: 'a token with a large payload', usPerKiB: 10 },
  worst: (bytes) => ({ token: tokenOf(Math.floor(bytes * 0.74)) }),
  examples: [
    {
      summary: 'Inspect the jwt.io sample token (never verifies)',
      body: { token: JWT_IO_SAMPLE, at: '2018-01-18T02:30:22Z' },
      data: {
        header: { alg: 'HS256', typ: 'JWT' },
        payload: { sub: '1234567890', name: 'John Doe', iat: 1516239022 },
        payload_format: 'json',
        signature: 'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
        signed_part:
          'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ',
        at: '2018-01-18T02:30:22.000Z',
        algorithm: 'HS256',
        key_id: null,
        type: 'JWT',
        claims: {
          iat: { value: 1516239022, iso: '2018-01-18T01:30:22.000Z', relative: '1 hour ago' },
          nbf: null,
          exp: null,
        },
        expired: false,
        not_yet_valid: false,
        expires_in_seconds: null,
        warnings: [
          {
            code: 'symmetric_algorithm',
            message: 'HMAC (shared secret): every party able to verify the token can also mint one',
          },
          { code: 'missing_kid', message: 'No "kid" header: verifiers cannot pick a key during rotation' },
          { code: 'missing_exp', message: 'No "exp" claim: the token never expires' },
        ],
      },
    },
  ],
})
