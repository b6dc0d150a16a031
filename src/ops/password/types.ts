// The password family's constant lists and plain types, for the ops and their routes alike.

export const ARGON2_VARIANTS = ['argon2id', 'argon2i', 'argon2d'] as const
export type Argon2Variant = (typeof ARGON2_VARIANTS)[number]

export const PBKDF2_VARIANTS = ['pbkdf2-sha256', 'pbkdf2-sha512'] as const
export type Pbkdf2Variant = (typeof PBKDF2_VARIANTS)[number]

export const PASSWORD_ALGORITHMS = [...ARGON2_VARIANTS, 'scrypt', 'bcrypt', ...PBKDF2_VARIANTS] as const
export type PasswordAlgorithm = (typeof PASSWORD_ALGORITHMS)[number]

// Each algorithm's parameters, named as in the request's `params` and the answers' `params`.
export interface Argon2Params {
  memory_kib: number
  iterations: number
  parallelism: number
}
export interface ScryptParams {
  log2_n: number
  block_size: number
  parallelism: number
}
export interface BcryptParams {
  cost: number
}
export interface Pbkdf2Params {
  iterations: number
}
export type PasswordParams = Argon2Params | ScryptParams | BcryptParams | Pbkdf2Params

// The per-plan caps on the work one request may ask, hash or verify alike (a stored hash names its own
// parameters, so verify is capped by what the hash asks). scrypt is capped by N·r (its memory is 128·N·r
// bytes) and by N·r·p (its time): OWASP's scrypt options trade N for p at about equal N·r·p.
export const PASSWORD_CAP_NAMES = [
  'password_argon2_memory_kib',
  'password_argon2_iterations',
  'password_argon2_parallelism',
  'password_scrypt_n_r',
  'password_scrypt_n_r_p',
  'password_bcrypt_cost',
  'password_pbkdf2_iterations',
] as const
export type PasswordCapName = (typeof PASSWORD_CAP_NAMES)[number]
export type PasswordCaps = Record<PasswordCapName, number>

// Sizes this service makes (a 16-byte salt, as RFC 9106 and the PHC string format recommend) and the
// bounds of what it reads back from a hash made elsewhere.
export const SALT_BYTES = 16
export const MAX_SALT_BYTES = 1024
export const MIN_HASH_BYTES = 4
export const MAX_HASH_BYTES = 1024
// A stored hash is at most this many characters (a 1024-byte salt and hash in Base64, and the rest)
export const MAX_HASH_CHARS = 3000
// The longest password any algorithm here takes, in UTF-8 bytes (passlib's limit, and the guard
// against the long-password denial of service of PBKDF2 implementations that rehash the key per round)
export const MAX_PASSWORD_BYTES = 4096
// bcrypt reads at most 72 bytes of its key; longer is refused, never truncated
export const BCRYPT_MAX_PASSWORD_BYTES = 72
