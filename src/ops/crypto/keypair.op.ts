import { defineOp } from '../define.ts'
import { BODY_PARSE_COST, bounded } from '../worst-case.ts'
import { generateKeypair, RSA_BITS_CAP } from './keypair.ts'
import { keypairBody, keypairResult } from './schema.ts'

export default defineOp({
  name: 'crypto.keypair',
  family: 'crypto',
  http: {
    path: '/v1/crypto/keypair',
    operationId: 'generateKeypair',
    summary: 'Generate a key pair (RSA, EC, Ed25519, X25519)',
    description:
      'A new key pair: the private key as PKCS#8 PEM and JWK, the public key as SPKI PEM and JWK, and the ' +
      "public key's RFC 7638 thumbprint (SHA-256, and as an RFC 9278 URI). RSA (2048–4096 bits, exponent " +
      "65537) is generated on the plan's pool and its size is capped per plan (crypto_rsa_max_bits: 2048 on " +
      'free, 4096 on pro and business; past it 422 ERR_PLAN_CAP). The keys are made for this answer only: ' +
      'never logged nor kept, and this route takes no Idempotency-Key (a retry makes a new pair).',
    errors: ['ERR_PLAN_CAP'],
  },
  body: keypairBody,
  response: keypairResult,
  run: (input, ctx) => generateKeypair(input, ctx.caps),
  caps: {
    [RSA_BITS_CAP]: {
      free: 2048,
      pro: 4096,
      business: 4096,
      describe: 'Largest RSA modulus (bits) POST /v1/crypto/keypair generates',
    },
  },
  cost: {
    ...BODY_PARSE_COST,
    // RSA generation takes 0.1–3 s, P-384 and P-521 about a millisecond: the pool's
    heavy: (input) => input.type === 'rsa' || (input.type === 'ec' && (input.curve ?? 'P-256') !== 'P-256'),
  },
  worst: (bytes) => bounded({ type: 'rsa' as const, bits: 4096 }, bytes),
  examples: [
    {
      summary: 'An Ed25519 key pair (the keys and thumbprint differ on every call)',
      body: { type: 'ed25519' },
      data: {
        type: 'ed25519',
        private_key: {
          pem: '-----BEGIN PRIVATE KEY-----…',
          jwk: { kty: 'OKP', crv: 'Ed25519', x: '…', d: '…' },
        },
        public_key: { pem: '-----BEGIN PUBLIC KEY-----…', jwk: { kty: 'OKP', crv: 'Ed25519', x: '…' } },
        thumbprint: '…',
        thumbprint_uri: 'urn:ietf:params:oauth:jwk-thumbprint:sha-256:…',
      },
    },
    {
      summary: 'An EC key pair on P-256',
      body: { type: 'ec', curve: 'P-256' },
      data: {
        type: 'ec',
        curve: 'P-256',
        private_key: {
          pem: '-----BEGIN PRIVATE KEY-----…',
          jwk: { kty: 'EC', crv: 'P-256', x: '…', y: '…', d: '…' },
        },
        public_key: { pem: '-----BEGIN PUBLIC KEY-----…', jwk: { kty: 'EC', crv: 'P-256', x: '…', y: '…' } },
        thumbprint: '…',
        thumbprint_uri: 'urn:ietf:params:oauth:jwk-thumbprint:sha-256:…',
      },
    },
  ],
})
