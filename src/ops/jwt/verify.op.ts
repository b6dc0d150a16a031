import { defineOp } from '../define.ts'
import { tokenOf } from '../worst-case.ts'
import { SAMPLE_PAYLOAD, SAMPLE_SECRET, SAMPLE_TOKEN } from './samples.ts'
import { jwtVerifyBody, jwtVerifyResult } from './schema.ts'
import { verifyIsHeavy, verifyJwt } from './verify.ts'

export default defineOp({
  name: 'jwt.verify',
  family: 'jwt',
  http: {
    path: '/v1/jwt/verify',
    operationId: 'verifyJwt',
    summary: 'Verify a token signature and its claims',
    description:
      'Exactly one of secret, public_key or jwks. A malformed token or unusable key is a 400; a well-formed ' +
      'token that fails is 200 {valid: false, reason}. alg "none" is never valid, and the key type must ' +
      'match the algorithm family (no HS256 with an RSA public key). RSA keys under 2048 bits are refused.',
    errors: [
      'ERR_INVALID_JWT',
      'ERR_INVALID_KEY_MATERIAL',
      'ERR_UNSUPPORTED_ALGORITHM',
      'ERR_INVALID_ENCODING',
    ],
  },
  body: jwtVerifyBody,
  response: jwtVerifyResult,
  run: verifyJwt,
  cost: {
    worst: 'HS512 over a large payload (PEM/JWK/JWKS keys: heavy)',
    usPerKiB: 16,
    heavy: verifyIsHeavy,
  },
  worst: (bytes) => ({ token: tokenOf(Math.floor(bytes * 0.74)), secret: 's'.repeat(64) }),
  warm: [{ token: SAMPLE_TOKEN, secret: SAMPLE_SECRET, algorithms: ['HS256'], at: '2023-11-14T22:30:00Z' }],
  examples: [
    {
      summary:
        'Verify it as of a moment inside its lifetime (without `at` the same call answers `{"valid": false, ' +
        '"reason": {"code": "expired", "message": "The token has expired (\\"exp\\" is in the past)", "claim": "exp"}}`)',
      body: { token: SAMPLE_TOKEN, secret: SAMPLE_SECRET, at: '2023-11-14T22:30:00Z' },
      data: { valid: true, header: { alg: 'HS256', typ: 'JWT', kid: 'k1' }, payload: SAMPLE_PAYLOAD },
    },
  ],
})
