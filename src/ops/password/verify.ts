// POST /v1/password/verify: whether a password matches a stored hash, and whether the hash should be
// replaced by one made under the current default policy.
import { timingSafeEqual } from 'node:crypto'
import { isAppError } from '../../errors.ts'
import { passwordBytes } from './password-bytes.ts'
import { needsRehash } from './policy.ts'
import { readHash } from './read.ts'
import type { PasswordVerifyBody, PasswordVerifyResult } from './schema.ts'
import type { PasswordCaps } from './types.ts'

export function verifyPassword(body: PasswordVerifyBody, caps: PasswordCaps): PasswordVerifyResult {
  const password = passwordBytes(body.password, body.password_encoding)
  const stored = readHash(body.hash)
  stored.checkCaps(caps)
  stored.checkPassword(password)
  // derive() gives exactly stored.expected's length, so the comparison is always of equal lengths and
  // takes the same time whichever byte differs
  const valid = timingSafeEqual(stored.derive(password), stored.expected)
  return {
    valid,
    algorithm: stored.algorithm,
    params: stored.params,
    needs_rehash: needsRehash({
      algorithm: stored.algorithm,
      params: stored.params,
      saltBytes: stored.saltBytes,
      hashBytes: stored.expected.length,
    }),
  }
}

// What the verification will hold off the V8 heap while it runs (the pool admits by it): the stored
// hash's own parameters. A hash that does not read needs none: the op refuses it before hashing.
export function verifyMemoryBytes(body: Pick<PasswordVerifyBody, 'hash'>): number {
  try {
    return readHash(body.hash).memoryBytes
  } catch (err) {
    if (isAppError(err)) return 0
    throw err
  }
}
