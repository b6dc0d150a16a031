// The password family's request and response schemas. `params` is one object whose fields belong to
// different algorithms; a field of another algorithm than the one named is refused at its own path.
import { z } from 'zod'
import { BYTE_ENCODINGS } from '../types.ts'
import {
  ARGON2_DEFAULTS,
  BCRYPT_DEFAULTS,
  DEFAULT_ALGORITHM,
  PBKDF2_DEFAULTS,
  POLICY_SOURCE,
  SCRYPT_DEFAULTS,
} from './policy.ts'
import { SCRYPT_MAX_RP_COMPUTED } from './scrypt.ts'
import { MAX_HASH_CHARS, PASSWORD_ALGORITHMS, type PasswordAlgorithm } from './types.ts'

const MAX_U32 = 2 ** 32 - 1

export const passwordAlgorithm = z.enum(PASSWORD_ALGORITHMS).meta({
  id: 'PasswordAlgorithm',
  description:
    'A password hashing algorithm: argon2id (the default), argon2i, argon2d, scrypt, bcrypt, or PBKDF2',
})

const PARAMS_OF = {
  argon2id: ['memory_kib', 'iterations', 'parallelism'],
  argon2i: ['memory_kib', 'iterations', 'parallelism'],
  argon2d: ['memory_kib', 'iterations', 'parallelism'],
  scrypt: ['log2_n', 'block_size', 'parallelism'],
  bcrypt: ['cost'],
  'pbkdf2-sha256': ['iterations'],
  'pbkdf2-sha512': ['iterations'],
} as const satisfies Record<PasswordAlgorithm, readonly string[]>

const a = ARGON2_DEFAULTS.argon2id
const s = SCRYPT_DEFAULTS
const owasp = `OWASP's Password Storage Cheat Sheet, taken ${POLICY_SOURCE.taken}`

const hashParams = z
  .strictObject({
    memory_kib: z
      .number()
      .int()
      .min(8)
      .max(MAX_U32)
      .optional()
      .describe(`argon2: memory in KiB (m), at least 8 per lane; default ${a.memory_kib} (argon2i 12288)`),
    iterations: z
      .number()
      .int()
      .min(1)
      .max(MAX_U32)
      .optional()
      .describe(
        `argon2: passes (t), default ${a.iterations} (argon2i 3); PBKDF2: iterations, default ` +
          `${PBKDF2_DEFAULTS['pbkdf2-sha256'].iterations} (sha256) or ${PBKDF2_DEFAULTS['pbkdf2-sha512'].iterations} (sha512)`,
      ),
    parallelism: z
      .number()
      .int()
      .min(1)
      .max(2 ** 30 - 1)
      .optional()
      .describe(`argon2: lanes (p), 1 to 255, default ${a.parallelism}; scrypt: p, default ${s.parallelism}`),
    log2_n: z
      .number()
      .int()
      .min(1)
      .max(63)
      .optional()
      .describe(`scrypt: log2 of N, the CPU/memory cost; default ${s.log2_n} (N = 2^${s.log2_n})`),
    block_size: z
      .number()
      .int()
      .min(1)
      .max(2 ** 30 - 1)
      .optional()
      .describe(`scrypt: the block size r; default ${s.block_size}`),
    cost: z
      .number()
      .int()
      .min(4)
      .max(31)
      .optional()
      .describe(`bcrypt: the cost, log2 of its rounds; default ${BCRYPT_DEFAULTS.cost}`),
  })
  .describe(`The algorithm's parameters; each one left out takes its default (${owasp}). The plan caps them.`)

const passwordField = z
  .string()
  .describe(
    'The password, in password_encoding (UTF-8 text by default, never normalized). At most 4096 bytes; ' +
      'bcrypt takes at most 72 and no NUL byte. Never logged, stored or echoed.',
  )
const passwordEncoding = z
  .enum(BYTE_ENCODINGS)
  .default('utf8')
  .describe(
    'How password is written: utf8 (default) or, for a password that is not UTF-8 text, hex or base64',
  )

export const passwordHashBody = z
  .strictObject({
    password: passwordField,
    password_encoding: passwordEncoding,
    algorithm: passwordAlgorithm.default(DEFAULT_ALGORITHM),
    params: hashParams.optional(),
  })
  .superRefine(function checkParams(body, ctx) {
    const allowed: readonly string[] = PARAMS_OF[body.algorithm]
    const given = body.params ?? {}
    for (const name of Object.keys(given)) {
      if (!allowed.includes(name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['params', name],
          message: `"${name}" is not a parameter of ${body.algorithm} (its parameters: ${allowed.join(', ')}).`,
        })
      }
    }
    if (body.algorithm.startsWith('argon2')) {
      const p = given.parallelism ?? 1
      // the PHC string format's bound (three digits), so every string written here is one it defines
      if (p > 255) {
        ctx.addIssue({
          code: 'custom',
          path: ['params', 'parallelism'],
          message: 'argon2 takes 1 to 255 lanes.',
        })
      }
      if (given.memory_kib !== undefined && given.memory_kib < 8 * p) {
        ctx.addIssue({
          code: 'custom',
          path: ['params', 'memory_kib'],
          message: 'argon2 needs at least 8 KiB per lane.',
        })
      }
    }
    if (body.algorithm === 'scrypt') {
      const logN = given.log2_n ?? s.log2_n
      const r = given.block_size ?? s.block_size
      const p = given.parallelism ?? s.parallelism
      if (logN >= 16 * r) {
        ctx.addIssue({
          code: 'custom',
          path: ['params', 'log2_n'],
          message: 'scrypt needs log2_n < 16·block_size.',
        })
      }
      if (r * p > SCRYPT_MAX_RP_COMPUTED) {
        ctx.addIssue({
          code: 'custom',
          path: ['params', 'parallelism'],
          message: `scrypt needs block_size·parallelism ≤ ${SCRYPT_MAX_RP_COMPUTED}: OpenSSL, which computes it, holds 128·r·p bytes in one buffer of at most 2^31 - 1 (RFC 7914 allows up to 2^30 - 1).`,
        })
      }
    }
  })

export const passwordVerifyBody = z.strictObject({
  password: passwordField,
  password_encoding: passwordEncoding,
  hash: z
    .string()
    .max(MAX_HASH_CHARS)
    .describe(
      'The stored hash: a PHC string ($argon2id$v=19$…, $scrypt$…, $pbkdf2-sha256$i=…$…, and passlib’s ' +
        '$pbkdf2-sha256$<rounds>$… form) or bcrypt ($2a$, $2b$, $2y$)',
    ),
})

const argon2ParamsOut = z
  .object({
    memory_kib: z.number().int().describe('Memory in KiB (m)'),
    iterations: z.number().int().describe('Passes (t)'),
    parallelism: z.number().int().describe('Lanes (p)'),
  })
  .meta({ id: 'Argon2Params', description: 'argon2id, argon2i and argon2d' })
const scryptParamsOut = z
  .object({
    log2_n: z.number().int().describe('log2 of N'),
    block_size: z.number().int().describe('r'),
    parallelism: z.number().int().describe('p'),
  })
  .meta({ id: 'ScryptParams', description: 'scrypt' })
const bcryptParamsOut = z
  .object({ cost: z.number().int().describe('log2 of the rounds') })
  .meta({ id: 'BcryptParams', description: 'bcrypt' })
const pbkdf2ParamsOut = z
  .object({ iterations: z.number().int().describe('Iterations of HMAC') })
  .meta({ id: 'Pbkdf2Params', description: 'pbkdf2-sha256 and pbkdf2-sha512' })
const paramsOut = z
  .union([argon2ParamsOut, scryptParamsOut, bcryptParamsOut, pbkdf2ParamsOut])
  .describe("The algorithm's parameters, by the names a hash request takes")

export const passwordHashResult = z.object({
  hash: z
    .string()
    .describe(
      'The hash to store: a PHC string (B64 without padding) for argon2, scrypt and PBKDF2; $2b$ for bcrypt',
    ),
  algorithm: passwordAlgorithm,
  params: paramsOut,
})

export const passwordVerifyResult = z.object({
  valid: z
    .boolean()
    .describe('Whether the password matches the hash; the outputs are compared in constant time'),
  algorithm: passwordAlgorithm,
  params: paramsOut,
  needs_rehash: z
    .boolean()
    .describe(
      'True when the hash is weaker than what /v1/password/hash makes by default (argon2id at one of ' +
        "OWASP's options, a 16-byte salt and a 32-byte hash) or uses another algorithm",
    ),
})

export type PasswordHashBody = z.output<typeof passwordHashBody>
export type PasswordVerifyBody = z.output<typeof passwordVerifyBody>
export type PasswordHashResult = z.output<typeof passwordHashResult>
export type PasswordVerifyResult = z.output<typeof passwordVerifyResult>
