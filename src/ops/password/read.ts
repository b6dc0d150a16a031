// A stored hash, read: which algorithm, its parameters, salt and hash output, and how to recompute the
// output from a password. Every way a string can fail to be a hash this service reads ends in
// ERR_INVALID_HASH or ERR_UNSUPPORTED_ALGORITHM, never in an exception of the libraries below.
import { argon2Caps, argon2Derive, argon2MemoryBytes, parseArgon2 } from './argon2.ts'
import { bcrypt64Decode } from './b64.ts'
import { bcryptCaps, bcryptHash, checkBcryptLength, parseBcrypt } from './bcrypt.ts'
import {
  isPasslibPbkdf2,
  PBKDF2_DIGESTS,
  parsePasslibPbkdf2,
  parsePbkdf2,
  pbkdf2Caps,
  pbkdf2Derive,
} from './pbkdf2.ts'
import { malformed, parsePhc, unsupported } from './phc.ts'
import { parseScrypt, scryptCaps, scryptDerive, scryptMemoryBytes } from './scrypt.ts'
import type {
  Argon2Variant,
  PasswordAlgorithm,
  PasswordCaps,
  PasswordParams,
  Pbkdf2Variant,
} from './types.ts'

export interface StoredHash {
  algorithm: PasswordAlgorithm
  params: PasswordParams
  saltBytes: number
  expected: Buffer
  // refuses what the plan does not allow (ERR_PLAN_CAP)
  checkCaps(caps: PasswordCaps): void
  // refuses a password the algorithm cannot take whole (bcrypt's 72 bytes and NUL)
  checkPassword(password: Uint8Array): void
  // the output this password gives with the stored salt and parameters, as long as `expected`
  derive(password: Uint8Array): Buffer
  memoryBytes: number
}

const IDENTIFIER = /^\$([a-z0-9-]{1,32})\$/
const BCRYPT_ID = /^2[a-z]?$/
const ARGON2 = new Set(['argon2id', 'argon2i', 'argon2d'])
const PBKDF2 = new Set(['pbkdf2-sha256', 'pbkdf2-sha512'])
const none = () => {}

export function readHash(text: string): StoredHash {
  const id = IDENTIFIER.exec(text)?.[1]
  if (id === undefined)
    throw malformed('a hash starts with "$", an identifier such as argon2id or 2b, and "$"')
  if (BCRYPT_ID.test(id)) return readBcrypt(text)
  if (ARGON2.has(id)) {
    const { variant, params, salt, hash } = parseArgon2(parsePhc(text))
    return {
      algorithm: variant,
      params,
      saltBytes: salt.length,
      expected: hash,
      checkCaps: (caps) => argon2Caps(params, caps),
      checkPassword: none,
      derive: (password) =>
        argon2Derive({ variant: variant as Argon2Variant, password, salt, params, tagLength: hash.length }),
      memoryBytes: argon2MemoryBytes(params),
    }
  }
  if (id === 'scrypt') {
    const { params, salt, hash } = parseScrypt(parsePhc(text))
    return {
      algorithm: 'scrypt',
      params,
      saltBytes: salt.length,
      expected: hash,
      checkCaps: (caps) => scryptCaps(params, caps),
      checkPassword: none,
      derive: (password) => scryptDerive(password, salt, params, hash.length),
      memoryBytes: scryptMemoryBytes(params),
    }
  }
  if (PBKDF2.has(id)) {
    const variant = id as Pbkdf2Variant
    const { params, salt, hash } = isPasslibPbkdf2(text)
      ? parsePasslibPbkdf2(text)
      : parsePbkdf2(parsePhc(text))
    return {
      algorithm: variant,
      params,
      saltBytes: salt.length,
      expected: hash,
      checkCaps: (caps) => pbkdf2Caps(params, caps),
      checkPassword: none,
      derive: (password) =>
        pbkdf2Derive(PBKDF2_DIGESTS[variant].digest, password, salt, params.iterations, hash.length),
      memoryBytes: 0,
    }
  }
  throw unsupported(id, `"$${id}$" hashes are not supported`)
}

function readBcrypt(text: string): StoredHash {
  const { version, params, salt, hash } = parseBcrypt(text)
  return {
    algorithm: 'bcrypt',
    params,
    saltBytes: salt.length,
    expected: hash,
    checkCaps: (caps) => bcryptCaps(params, caps),
    checkPassword: checkBcryptLength,
    // the library writes the whole string; its last 31 characters are the hash
    derive: (password) => bcrypt64Decode(bcryptHash(password, salt, params.cost, version).slice(-31))!,
    // Blowfish's state: 4 KiB of S-boxes and the P-array
    memoryBytes: 4168,
  }
}
