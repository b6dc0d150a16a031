import { defineOp } from '../define.ts'
import { convertKey } from './convert.ts'
import { isPrivate, keyWorst, RFC7638_KEY } from './examples.ts'
import { convertBody, convertResult } from './schema.ts'

export default defineOp({
  name: 'crypto.convert',
  family: 'crypto',
  http: {
    path: '/v1/crypto/convert',
    operationId: 'convertKey',
    summary: 'Convert a key between PEM and JWK',
    description:
      'Reads a key as PEM or JWK, public or private, and answers it in both forms: a private key as PKCS#8 ' +
      'PEM and JWK with its public key, a public key as SPKI PEM and JWK, with the RFC 7638 thumbprint. ' +
      'Reads PKCS#8, PKCS#1 (RSA) and SEC1 (EC) private keys, SPKI and PKCS#1 public keys and X.509 ' +
      'certificates (their public key); RSA (up to 16,384 bits), EC (P-256, P-384, P-521, secp256k1), ' +
      'Ed25519, Ed448, X25519 and X448. An encrypted private key, several PEM blocks, a symmetric JWK or an RSA ' +
      'private JWK without its CRT members is 400 ERR_INVALID_KEY_MATERIAL; messages never repeat the key.',
    errors: ['ERR_INVALID_KEY_MATERIAL'],
  },
  body: convertBody,
  response: convertResult,
  run: convertKey,
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
      summary:
        'The RSA public key of RFC 7638 §3.1, from JWK to PEM (and its thumbprint, as the RFC computes it)',
      body: { key: RFC7638_KEY },
      data: {
        kind: 'public',
        type: 'rsa',
        bits: 2048,
        public_key: { pem: '-----BEGIN PUBLIC KEY-----…', jwk: { kty: 'RSA', n: RFC7638_KEY.n, e: 'AQAB' } },
        thumbprint: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
        thumbprint_uri:
          'urn:ietf:params:oauth:jwk-thumbprint:sha-256:NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
      },
    },
    {
      summary: 'An encrypted private key is not read',
      body: { key: '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n' },
      error: {
        type: 'invalid_request',
        message: '`key` is an encrypted private key; it is not read (decrypt it first)',
        code: 'ERR_INVALID_KEY_MATERIAL',
        details: { field: 'key', pem_label: 'ENCRYPTED PRIVATE KEY' },
      },
    },
  ],
})
