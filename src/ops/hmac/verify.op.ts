import { defineOp } from '../define.ts'
import { fill } from '../worst-case.ts'
import { verifyHmac } from './hmac.ts'
import { hmacVerifyBody, hmacVerifyResult } from './schema.ts'

export default defineOp({
  name: 'hmac.verify',
  family: 'hmac',
  http: {
    // a static segment outranks a parameter in Fastify's router: /verify is never read as an algorithm
    path: '/v1/hmac/verify',
    operationId: 'verifyHmac',
    summary: 'Check an HMAC in constant time',
    description:
      'A digest that decodes but has the wrong length is simply {valid: false}; one that does not decode in ' +
      'digest_encoding is a 400 ERR_INVALID_ENCODING pointing at it.',
    errors: ['ERR_UNSUPPORTED_ALGORITHM', 'ERR_INVALID_ENCODING'],
  },
  body: hmacVerifyBody,
  response: hmacVerifyResult,
  run: verifyHmac,
  cost: { worst: 'HMAC-SHA-512 of ASCII text', usPerKiB: 7 },
  worst: (bytes) => ({ algorithm: 'sha512', input: fill('x', bytes), key: 'k', digest: '00'.repeat(64) }),
  examples: [
    {
      summary: 'Check a MAC you received (here in base64), compared in constant time',
      body: {
        algorithm: 'sha256',
        input: 'what do ya want for nothing?',
        key: 'Jefe',
        digest: 'W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM=',
        digest_encoding: 'base64',
      },
      data: { valid: true },
    },
  ],
})
