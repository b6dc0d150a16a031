// POST /v1/password/hash: a new hash of a password, with a random 16-byte salt (bcrypt: its 16-byte salt)
// and the default policy's parameters for whatever the request leaves out.
import { randomBytes } from 'node:crypto'
import { argon2Caps, argon2Derive, argon2MemoryBytes, formatArgon2 } from './argon2.ts'
import { bcryptCaps, bcryptHash, checkBcryptNewPassword } from './bcrypt.ts'
import { passwordBytes } from './password-bytes.ts'
import { formatPbkdf2, PBKDF2_DIGESTS, pbkdf2Caps, pbkdf2Derive } from './pbkdf2.ts'
import { ARGON2_DEFAULTS, BCRYPT_DEFAULTS, HASH_BYTES, PBKDF2_DEFAULTS, SCRYPT_DEFAULTS } from './policy.ts'
import type { PasswordHashBody, PasswordHashResult } from './schema.ts'
import { formatScrypt, scryptCaps, scryptDerive, scryptMemoryBytes } from './scrypt.ts'
import type { Argon2Params, BcryptParams, PasswordCaps, Pbkdf2Params, ScryptParams } from './types.ts'
import { SALT_BYTES } from './types.ts'

type Given = NonNullable<PasswordHashBody['params']>

// The parameters a hash request runs with: each one given, or its default. The schema has already
// refused any that do not belong to the algorithm.
export function resolveParams(body: Pick<PasswordHashBody, 'algorithm' | 'params'>) {
  const given: Given = body.params ?? {}
  switch (body.algorithm) {
    case 'argon2id':
    case 'argon2i':
    case 'argon2d': {
      const d = ARGON2_DEFAULTS[body.algorithm]
      return {
        algorithm: body.algorithm,
        params: {
          memory_kib: given.memory_kib ?? d.memory_kib,
          iterations: given.iterations ?? d.iterations,
          parallelism: given.parallelism ?? d.parallelism,
        } satisfies Argon2Params,
      }
    }
    case 'scrypt':
      return {
        algorithm: body.algorithm,
        params: {
          log2_n: given.log2_n ?? SCRYPT_DEFAULTS.log2_n,
          block_size: given.block_size ?? SCRYPT_DEFAULTS.block_size,
          parallelism: given.parallelism ?? SCRYPT_DEFAULTS.parallelism,
        } satisfies ScryptParams,
      }
    case 'bcrypt':
      return {
        algorithm: body.algorithm,
        params: { cost: given.cost ?? BCRYPT_DEFAULTS.cost } satisfies BcryptParams,
      }
    case 'pbkdf2-sha256':
    case 'pbkdf2-sha512':
      return {
        algorithm: body.algorithm,
        params: {
          iterations: given.iterations ?? PBKDF2_DEFAULTS[body.algorithm].iterations,
        } satisfies Pbkdf2Params,
      }
  }
}

// What the hash will hold off the V8 heap while it runs (the pool admits by it).
export function hashMemoryBytes(body: Pick<PasswordHashBody, 'algorithm' | 'params'>): number {
  const run = resolveParams(body)
  if (run.algorithm.startsWith('argon2')) return argon2MemoryBytes(run.params as Argon2Params)
  if (run.algorithm === 'scrypt') return scryptMemoryBytes(run.params as ScryptParams)
  return 0
}

type Run = ReturnType<typeof resolveParams>

// 422 ERR_PLAN_CAP when the run asks for more than the plan allows; before any hashing.
export function checkHashCaps(run: Run, caps: PasswordCaps): void {
  switch (run.algorithm) {
    case 'argon2id':
    case 'argon2i':
    case 'argon2d':
      argon2Caps(run.params, caps)
      break
    case 'scrypt':
      scryptCaps(run.params, caps)
      break
    case 'bcrypt':
      bcryptCaps(run.params, caps)
      break
    case 'pbkdf2-sha256':
    case 'pbkdf2-sha512':
      pbkdf2Caps(run.params, caps)
      break
  }
}

export function hashPassword(body: PasswordHashBody, caps: PasswordCaps): PasswordHashResult {
  const password = passwordBytes(body.password, body.password_encoding)
  const run = resolveParams(body)
  checkHashCaps(run, caps)
  const salt = randomBytes(SALT_BYTES)
  switch (run.algorithm) {
    case 'argon2id':
    case 'argon2i':
    case 'argon2d': {
      const hash = argon2Derive({
        variant: run.algorithm,
        password,
        salt,
        params: run.params,
        tagLength: HASH_BYTES,
      })
      return { hash: formatArgon2(run.algorithm, run.params, salt, hash), ...run }
    }
    case 'scrypt': {
      const hash = scryptDerive(password, salt, run.params, HASH_BYTES)
      return { hash: formatScrypt(run.params, salt, hash), ...run }
    }
    case 'bcrypt':
      checkBcryptNewPassword(password)
      return { hash: bcryptHash(password, salt, run.params.cost, '2b'), ...run }
    case 'pbkdf2-sha256':
    case 'pbkdf2-sha512': {
      const { digest, bytes } = PBKDF2_DIGESTS[run.algorithm]
      const hash = pbkdf2Derive(digest, password, salt, run.params.iterations, bytes)
      return { hash: formatPbkdf2(run.algorithm, run.params, salt, hash), ...run }
    }
  }
}
