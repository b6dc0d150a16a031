import { type AppError, isAppError } from '../../src/errors.ts'
import { hashPassword } from '../../src/ops/password/hash.ts'
import { passwordHashBody } from '../../src/ops/password/schema.ts'
import { PASSWORD_CAP_NAMES, type PasswordCaps } from '../../src/ops/password/types.ts'
import { verifyPassword } from '../../src/ops/password/verify.ts'

// Caps out of the way, for tests of the algorithms rather than of the plans
export const NO_CAPS = Object.fromEntries(
  PASSWORD_CAP_NAMES.map((n) => [n, Number.MAX_SAFE_INTEGER]),
) as PasswordCaps

export function hash(body: Record<string, unknown>, caps: PasswordCaps = NO_CAPS) {
  return hashPassword(passwordHashBody.parse(body), caps)
}

export function verify(
  password: string,
  stored: string,
  caps: PasswordCaps = NO_CAPS,
  encoding = 'utf8' as const,
) {
  return verifyPassword({ password, password_encoding: encoding, hash: stored }, caps)
}

// The AppError a call throws (any other throw, or none, fails the test that asked)
export function appError(fn: () => unknown): AppError {
  try {
    fn()
  } catch (err) {
    if (isAppError(err)) return err
    throw err
  }
  throw new Error('expected an AppError, nothing was thrown')
}
