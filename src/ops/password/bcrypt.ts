// bcrypt through @node-rs/bcrypt (docs/decisions.md says why that library), in its own format:
// $2b$<cost, two digits>$<22 characters of salt><31 characters of hash>, bcrypt's radix-64. $2a$ and $2y$
// are read as $2b$ (for passwords of at most 72 bytes, the only ones taken here, the three compute the
// same); $2x$ (crypt_blowfish's sign-extension bug, reproduced on purpose) and the original $2$ are not.
import { hashSync } from '@node-rs/bcrypt'
import { AppError } from '../../errors.ts'
import { bcrypt64Decode } from './b64.ts'
import { checkCap } from './caps.ts'
import { malformed, unsupported } from './phc.ts'
import type { BcryptParams, PasswordCaps } from './types.ts'
import { BCRYPT_MAX_PASSWORD_BYTES } from './types.ts'

export const BCRYPT_VERSIONS = ['2a', '2b', '2y'] as const
export type BcryptVersion = (typeof BCRYPT_VERSIONS)[number]
export const BCRYPT_MIN_COST = 4
export const BCRYPT_MAX_COST = 31

// bcrypt keys Blowfish with at most 72 bytes: a longer password would be hashed as its first 72, so it
// is refused, never cut, when hashing and when verifying alike.
export function checkBcryptLength(password: Uint8Array): void {
  if (password.length > BCRYPT_MAX_PASSWORD_BYTES) {
    throw new AppError(
      'ERR_PASSWORD_TOO_LONG',
      `bcrypt takes passwords of at most ${BCRYPT_MAX_PASSWORD_BYTES} bytes; a longer one is refused, never truncated.`,
      { algorithm: 'bcrypt', max_bytes: BCRYPT_MAX_PASSWORD_BYTES },
    )
  }
}

// OpenBSD's bcrypt and every C implementation after it (crypt_blowfish, PHP, pyca/bcrypt before 4.0) read
// the key as a C string and stop at its first NUL; a hash made here over the bytes after one would not
// verify there. So a new hash refuses it; a verification computes over every byte, as pyca/bcrypt and
// bcryptjs do (which is how a stored hash of such a password can have been made).
export function checkBcryptNewPassword(password: Uint8Array): void {
  checkBcryptLength(password)
  if (password.includes(0)) {
    throw new AppError(
      'ERR_INVALID_PASSWORD',
      'bcrypt cannot take a password holding a NUL byte: its C implementations stop reading at it.',
      { algorithm: 'bcrypt', reason: 'nul_byte' },
    )
  }
}

export function bcryptCaps(params: BcryptParams, caps: PasswordCaps): void {
  checkCap(caps, 'password_bcrypt_cost', params.cost, 'bcrypt cost')
}

// The full string, $<version>$<cost>$<salt><hash>; the library encodes the salt it is given.
export function bcryptHash(
  password: Uint8Array,
  salt: Uint8Array,
  cost: number,
  version: BcryptVersion,
): string {
  return hashSync(password, { salt, cost, version })
}

export interface StoredBcrypt {
  version: BcryptVersion
  params: BcryptParams
  salt: Buffer
  // the 23 bytes of the hash, as its 31 characters decode
  hash: Buffer
}

const SHAPE = /^\$(2[a-z]?)\$([0-9]{2})\$([./A-Za-z0-9]{22})([./A-Za-z0-9]{31})$/

// Salt and hash must be canonical (the unused low bits of their last character zero), as OpenBSD's own
// comparison of whole strings and the pyca/bcrypt reader require.
export function parseBcrypt(text: string): StoredBcrypt {
  const m = SHAPE.exec(text)
  if (!m) throw malformed('a bcrypt hash is $2b$<two-digit cost>$ and 53 characters of ./A-Za-z0-9')
  const version = m[1]!
  if (!(BCRYPT_VERSIONS as readonly string[]).includes(version)) {
    throw unsupported(`$${version}$`, `bcrypt $${version}$ hashes are not supported; $2a$, $2b$ and $2y$ are`)
  }
  const cost = Number(m[2])
  if (cost < BCRYPT_MIN_COST || cost > BCRYPT_MAX_COST) {
    throw malformed(`the bcrypt cost is ${BCRYPT_MIN_COST} to ${BCRYPT_MAX_COST}`, { field: 'cost' })
  }
  const salt = bcrypt64Decode(m[3]!)
  if (salt === undefined) throw malformed('the bcrypt salt is not canonical', { field: 'salt' })
  const hash = bcrypt64Decode(m[4]!)
  if (hash === undefined) throw malformed('the bcrypt hash is not canonical', { field: 'hash' })
  return { version: version as BcryptVersion, params: { cost }, salt, hash }
}
