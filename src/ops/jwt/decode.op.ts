import { defineOp } from '../define.ts'
import { tokenOf } from '../worst-case.ts'
import { decodeJwt } from './decode.ts'
import { JWT_IO_SAMPLE } from './samples.ts'
import { jwtDecodeBody, jwtDecodeResult } from './schema.ts'

export default defineOp({
  name: 'jwt.decode',
  family: 'jwt',
  http: {
    path: '/v1/jwt/decode',
    operationId: 'decodeJwt',
    summary: 'Take a JWS compact token apart (never verifies)',
    description:
      'Splits header.payload.signature and decodes the header and payload (a payload that is not a JSON ' +
      'object is returned as text or base64url, as `payload_format` says). Nothing is verified: use ' +
      'POST /v1/jwt/verify before trusting a claim. A token that is not three base64url segments with a JSON ' +
      'header is 400 ERR_INVALID_JWT, with details {part, reason}.',
    errors: ['ERR_INVALID_JWT'],
  },
  body: jwtDecodeBody,
  response: jwtDecodeResult,
  run: decodeJwt,
  cost: { worst: 'a token with a large payload', usPerKiB: 10 },
  worst: (bytes) => ({ token: tokenOf(Math.floor(bytes * 0.74)) }),
  warm: [{ token: JWT_IO_SAMPLE }],
  examples: [
    {
      summary: 'Decode a token without verifying it (header and claims, for debugging)',
      body: { token: JWT_IO_SAMPLE },
      data: {
        header: { alg: 'HS256', typ: 'JWT' },
        payload: { sub: '1234567890', name: 'John Doe', iat: 1516239022 },
        payload_format: 'json',
        signature: 'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
        signed_part:
          'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ',
      },
    },
  ],
})
