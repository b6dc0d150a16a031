import { z } from 'zod'
import { defineOp } from '../define.ts'
import { fill } from '../worst-case.ts'
import { SAMPLE_PAYLOAD, SAMPLE_SECRET, SAMPLE_TOKEN } from './samples.ts'
import { jwtSignBody } from './schema.ts'
import { signJwt } from './sign.ts'

export default defineOp({
  name: 'jwt.sign',
  family: 'jwt',
  http: {
    path: '/v1/jwt/sign',
    operationId: 'signJwt',
    summary: 'Sign a JWT',
    description:
      'iat is set to the signing time unless the payload has one. HS* secrets must be at least the hash size ' +
      '(32/48/64 bytes, RFC 7518 §3.2); RSA keys at least 2048 bits. alg "none" is never signed.',
    errors: ['ERR_UNSUPPORTED_ALGORITHM', 'ERR_INVALID_KEY_MATERIAL', 'ERR_INVALID_ENCODING'],
  },
  body: jwtSignBody,
  response: z.object({ token: z.string() }),
  run: signJwt,
  // RSA, RSA-PSS and ECDSA signatures are public-key work whatever the size
  cost: {
    worst: 'HS512 of a large payload (RS/PS: heavy)',
    usPerKiB: 60,
    heavy: (input) => /^(RS|PS|ES)/.test(String(input.algorithm)),
  },
  worst: (bytes) => ({
    algorithm: 'HS512',
    secret: 's'.repeat(64),
    payload: { data: fill('y', bytes - 64) },
  }),
  warm: [{ payload: { sub: 'warm' }, algorithm: 'HS256', secret: SAMPLE_SECRET }],
  examples: [
    {
      summary: 'Sign (HS256; the payload sets `iat` and `exp` itself here, so the token is reproducible)',
      body: { payload: SAMPLE_PAYLOAD, algorithm: 'HS256', secret: SAMPLE_SECRET, header: { kid: 'k1' } },
      data: { token: SAMPLE_TOKEN },
    },
  ],
})
