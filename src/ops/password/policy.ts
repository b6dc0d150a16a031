// The default policy: OWASP's Password Storage Cheat Sheet, as read on 2026-11-28 from OWASP/CheatSheetSeries
// (its Password Storage Cheat Sheet page at commit 6b8819d; the file last changed on 2026-06-25,
// a6eb0c6, "Apply minor fixes to PBKDF2 recommendations"). docs/decisions.md ("Password hashing") quotes it.
import type {
  Argon2Params,
  Argon2Variant,
  BcryptParams,
  PasswordAlgorithm,
  Pbkdf2Params,
  Pbkdf2Variant,
  ScryptParams,
} from './types.ts'
import { SALT_BYTES } from './types.ts'

export const POLICY_SOURCE = {
  document: 'OWASP Password Storage Cheat Sheet',
  taken: '2026-11-28',
  revision: 'OWASP/CheatSheetSeries a6eb0c6 (2026-06-25)',
} as const

export const DEFAULT_ALGORITHM = 'argon2id' satisfies PasswordAlgorithm

// Argon2id: "m=19456 (19 MiB), t=2, p=1", the summary's recommendation. OWASP lists the two lowest-pass
// options "Do not use with Argon2i" (few passes expose Argon2i's data-independent addressing to
// time-memory trade-offs), so argon2i takes the first option it allows; argon2d, data-dependent, has no
// such weakness and takes argon2id's.
export const ARGON2_DEFAULTS: Record<Argon2Variant, Argon2Params> = {
  argon2id: { memory_kib: 19_456, iterations: 2, parallelism: 1 },
  argon2d: { memory_kib: 19_456, iterations: 2, parallelism: 1 },
  argon2i: { memory_kib: 12_288, iterations: 3, parallelism: 1 },
}

// scrypt: "N=2^17 (128 MiB), r=8 (1024 bytes), p=1".
export const SCRYPT_DEFAULTS: ScryptParams = { log2_n: 17, block_size: 8, parallelism: 1 }

// bcrypt: "a work factor of 10 or more".
export const BCRYPT_DEFAULTS: BcryptParams = { cost: 10 }

// PBKDF2: "PBKDF2-HMAC-SHA256: 600,000 iterations", "PBKDF2-HMAC-SHA512: 220,000 iterations".
export const PBKDF2_DEFAULTS: Record<Pbkdf2Variant, Pbkdf2Params> = {
  'pbkdf2-sha256': { iterations: 600_000 },
  'pbkdf2-sha512': { iterations: 220_000 },
}

// OWASP's argon2id options, all of equal strength in its judgement; a hash at least as strong as any one
// of them (no less memory and no fewer passes) meets the policy.
export const ARGON2ID_OPTIONS: readonly (readonly [memoryKib: number, iterations: number])[] = [
  [47_104, 1],
  [19_456, 2],
  [12_288, 3],
  [9_216, 4],
  [7_168, 5],
]

// The tag length this service writes for argon2 and scrypt (32 bytes, the PHC string format's and
// RFC 9106's recommendation); a stored hash with a shorter tag or salt is weaker than what /hash makes.
export const HASH_BYTES = 32

export interface HashStrength {
  algorithm: PasswordAlgorithm
  params: Argon2Params | ScryptParams | BcryptParams | Pbkdf2Params
  saltBytes: number
  hashBytes: number
}

// needs_rehash: true unless the hash is what the default policy would accept today, argon2id (version
// 19: older versions are not read at all) meeting one of OWASP's options, with a salt and a tag no
// shorter than this service writes. Any other algorithm needs a rehash, however strong.
export function needsRehash(stored: HashStrength): boolean {
  if (stored.algorithm !== DEFAULT_ALGORITHM) return true
  if (stored.saltBytes < SALT_BYTES || stored.hashBytes < HASH_BYTES) return true
  const { memory_kib, iterations } = stored.params as Argon2Params
  return !ARGON2ID_OPTIONS.some(([m, t]) => memory_kib >= m && iterations >= t)
}
