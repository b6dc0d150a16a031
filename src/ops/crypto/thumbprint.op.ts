import { defineOp } from '../define.ts'
import { thumbprintKey } from './convert.ts'
import { isPrivate, keyWorst, RFC7638_KEY } from './examples.ts'
import { thumbprintBody, thumbprintResult } from './schema.ts'

export default defineOp({
  name: 'crypto.thumbprint',
  family: 'crypto',
  http: {
    path: '/v1/crypto/thumbprint',
    operationId: 'jwkThumbprint',
    summary: "A key's JWK thumbprint (RFC 7638)",
    description:
      "The RFC 7638 thumbprint of a key's public half (SHA-256 by default, or SHA-384, SHA-512), base64url " +
      'and as an RFC 9278 URI, from any key convert reads: PEM or JWK, public or private (a private key and ' +
      'its public key have the same thumbprint).',
    errors: ['ERR_INVALID_KEY_MATERIAL'],
  },
  body: thumbprintBody,
  response: thumbprintResult,
  run: thumbprintKey,
  // measured 31–37 µs/KiB (bench/cost-models.ts, best of 15 on the loaded 2-core machine); declared with room
  // for the ~0.15 ms a key's import costs whatever its size. A private key goes to the pool: its public half
  // is derived or checked (an EC point is d·G, a scalar multiplication).
  cost: {
    worst: 'an RSA public key of 16,384 bits as a JWK',
    usPerKiB: 100,
    heavy: (input) => isPrivate(input.key),
  },
  worst: keyWorst,
  examples: [
    {
      summary: 'RFC 7638 §3.1',
      body: { key: RFC7638_KEY },
      data: {
        type: 'rsa',
        bits: 2048,
        hash: 'sha256',
        thumbprint: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
        thumbprint_uri:
          'urn:ietf:params:oauth:jwk-thumbprint:sha-256:NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
      },
    },
  ],
})
