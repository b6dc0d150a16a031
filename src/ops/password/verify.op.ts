import { defineOp } from '../define.ts'
import { fill } from '../worst-case.ts'
import { PASSWORD_CAPS, passwordMemoryCap } from './caps.ts'
import { passwordVerifyBody, passwordVerifyResult } from './schema.ts'
import type { PasswordCaps } from './types.ts'
import { verifyMemoryBytes, verifyPassword } from './verify.ts'

export default defineOp({
  name: 'password.verify',
  family: 'password',
  http: {
    path: '/v1/password/verify',
    operationId: 'verifyPassword',
    summary: 'Check a password against a stored hash, in constant time',
    description:
      "Reads argon2-cffi's and libargon2's strings, $2a$/$2b$/$2y$ bcrypt, passlib's scrypt and PBKDF2 forms (its " +
      '"ab64" too) and the PHC forms; needs_rehash says whether the hash is weaker than what /v1/password/hash ' +
      'makes today or uses another algorithm. A hash that does not read is 400 ERR_INVALID_HASH, one of a scheme ' +
      'not computed here ERR_UNSUPPORTED_ALGORITHM; the plan caps what a stored hash may ask (ERR_PLAN_CAP).',
    errors: [
      'ERR_INVALID_HASH',
      'ERR_UNSUPPORTED_ALGORITHM',
      'ERR_PLAN_CAP',
      'ERR_PASSWORD_TOO_LONG',
      'ERR_INVALID_ENCODING',
      'ERR_COMPUTE_LIMIT',
      'ERR_OVERLOADED',
    ],
  },
  body: passwordVerifyBody,
  response: passwordVerifyResult,
  run: (input, ctx) => verifyPassword(input, ctx.caps as PasswordCaps),
  caps: PASSWORD_CAPS,
  cost: {
    worst: 'a body the schema refuses (a long password string)',
    usPerKiB: 8,
    heavy: () => true,
    memoryBytes: verifyMemoryBytes,
    memoryCap: passwordMemoryCap,
  },
  worst: (bytes) => ({
    password: fill('x', bytes - 128),
    hash: '$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
  }),
  examples: [
    {
      summary:
        "The Argon2 reference's test vector: valid, and a rehash is due (its salt is 8 bytes, this service writes 16)",
      body: {
        password: 'password',
        hash: '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
      },
      data: {
        valid: true,
        algorithm: 'argon2id',
        params: { memory_kib: 65536, iterations: 2, parallelism: 1 },
        needs_rehash: true,
      },
    },
    {
      summary: 'passlib\'s PBKDF2 form, whose Base64 writes "." for "+"',
      body: {
        password: 'password',
        hash: '$pbkdf2-sha256$1212$4vjV83LKPjQzk31VI4E0Vw$hsYF68OiOUPdDZ1Fg.fJPeq1h/gXXY7acBp9/6c.tmQ',
      },
      data: { valid: true, algorithm: 'pbkdf2-sha256', params: { iterations: 1212 }, needs_rehash: true },
    },
    {
      summary: 'A wrong password is valid: false',
      body: { password: 'hunter2', hash: '$2b$04$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e' },
      data: { valid: false, algorithm: 'bcrypt', params: { cost: 4 }, needs_rehash: true },
    },
    {
      summary: 'A stored hash asking for more than the plan allows is refused before any hashing',
      body: { password: 'password', hash: '$2b$31$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e' },
      error: {
        type: 'invalid_request',
        message: "bcrypt cost 31 is over the plan's cap password_bcrypt_cost = 16.",
        code: 'ERR_PLAN_CAP',
        details: { cap: 'password_bcrypt_cost', max: 16, requested: 31 },
      },
    },
  ],
})
