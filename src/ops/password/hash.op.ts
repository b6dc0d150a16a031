import { defineOp } from '../define.ts'
import { fill } from '../worst-case.ts'
import { PASSWORD_CAPS, passwordMemoryCap } from './caps.ts'
import { hashMemoryBytes, hashPassword } from './hash.ts'
import { passwordHashBody, passwordHashResult } from './schema.ts'
import type { PasswordCaps } from './types.ts'

export default defineOp({
  name: 'password.hash',
  family: 'password',
  http: {
    path: '/v1/password/hash',
    operationId: 'hashPassword',
    summary: 'Hash a password (argon2id by default)',
    description:
      "A new hash with a random 16-byte salt, at OWASP's recommended parameters unless params says otherwise: " +
      'a PHC string (B64 without padding) for argon2id, argon2i, argon2d, scrypt and PBKDF2, $2b$ for bcrypt. ' +
      "The plan caps the work one request may ask (422 ERR_PLAN_CAP names the cap). Always computed on the plan's " +
      'pool, admitted by the memory it needs; the password is never logged, stored or echoed.',
    errors: [
      'ERR_PLAN_CAP',
      'ERR_PASSWORD_TOO_LONG',
      'ERR_INVALID_PASSWORD',
      'ERR_INVALID_ENCODING',
      'ERR_COMPUTE_LIMIT',
      'ERR_OVERLOADED',
    ],
  },
  body: passwordHashBody,
  response: passwordHashResult,
  run: (input, ctx) => hashPassword(input, ctx.caps as PasswordCaps),
  caps: PASSWORD_CAPS,
  cost: {
    worst: 'a body the schema refuses (a long password string)',
    usPerKiB: 8,
    // a hash costs milliseconds to seconds whatever the body's size: always the pool
    heavy: () => true,
    memoryBytes: hashMemoryBytes,
    memoryCap: passwordMemoryCap,
  },
  worst: (bytes) => ({ password: fill('x', bytes - 64), params: { memory_kib: 8, iterations: 1 } }),
  warm: [
    { password: 'warm', params: { memory_kib: 8, iterations: 1 } },
    { password: 'warm', algorithm: 'bcrypt', params: { cost: 4 } },
  ],
  examples: [
    {
      summary:
        "Hash with argon2id at OWASP's parameters (the hash differs on every call: its salt is random)",
      body: { password: 'correct horse battery staple' },
      data: {
        hash: '$argon2id$v=19$m=19456,t=2,p=1$…',
        algorithm: 'argon2id',
        params: { memory_kib: 19456, iterations: 2, parallelism: 1 },
      },
    },
    {
      summary: 'bcrypt at cost 12',
      body: { password: 'correct horse battery staple', algorithm: 'bcrypt', params: { cost: 12 } },
      data: { hash: '$2b$12$…', algorithm: 'bcrypt', params: { cost: 12 } },
    },
    {
      summary: 'bcrypt reads at most 72 bytes: a longer password is refused, never truncated',
      body: { password: 'x'.repeat(73), algorithm: 'bcrypt' },
      error: {
        type: 'invalid_request',
        message: 'bcrypt takes passwords of at most 72 bytes; a longer one is refused, never truncated.',
        code: 'ERR_PASSWORD_TOO_LONG',
        details: { algorithm: 'bcrypt', max_bytes: 72 },
      },
    },
  ],
})
