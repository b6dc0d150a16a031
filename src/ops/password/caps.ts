// The per-plan caps on the work one request may ask, and the refusal that names the cap. The caps are a
// plain argument to the ops (the plan's values, with a workspace's overrides, are resolved by the caller).
import { AppError } from '../../errors.ts'
import type { PasswordCapName, PasswordCaps } from './types.ts'

// Sized from the measurements in docs/decisions.md ("Password hashing: caps and memory"): every plan
// takes each algorithm's OWASP default, every OWASP scrypt option, and argon2-cffi's RFC 9106 low-memory
// profile (m=65536, t=3, p=4); and a plan's most expensive request (every cap at once) measured under
// half its compute budget (1 s, 10 s, 30 s), because a hash runs in native code that the pool's ending
// of a thread cannot stop midway.
export const PASSWORD_CAPS: Record<
  PasswordCapName,
  { free: number; pro: number; business: number; describe: string }
> = {
  password_argon2_memory_kib: {
    free: 65_536,
    pro: 262_144,
    business: 1_048_576,
    describe: 'Most memory one argon2 hash may use (m, in KiB)',
  },
  password_argon2_iterations: {
    free: 6,
    pro: 12,
    business: 12,
    describe: 'Most passes one argon2 hash may make (t)',
  },
  password_argon2_parallelism: {
    free: 4,
    pro: 8,
    business: 16,
    describe:
      'Most lanes one argon2 hash may have (p); each lane past the first may run on a thread of its own',
  },
  password_scrypt_n_r: {
    free: 2 ** 20,
    pro: 2 ** 22,
    business: 2 ** 23,
    describe: 'Largest N·r one scrypt hash may ask (its memory is 128·N·r bytes: 2^20 is 128 MiB)',
  },
  password_scrypt_n_r_p: {
    free: 2 ** 20,
    pro: 2 ** 23,
    business: 2 ** 25,
    describe:
      "Largest N·r·p one scrypt hash may ask (its time grows with it; OWASP's options are all at most 2^20)",
  },
  password_bcrypt_cost: {
    free: 12,
    pro: 14,
    business: 16,
    describe: 'Highest bcrypt cost (log2 of its rounds) one hash may ask',
  },
  password_pbkdf2_iterations: {
    free: 1_000_000,
    pro: 10_000_000,
    business: 25_000_000,
    describe: 'Most PBKDF2 iterations one hash may ask (sha256 or sha512)',
  },
}

// The most one hash may hold under these caps (charged when its body is parsed on the thread): argon2's m
// KiB, or scrypt's 128·r·(N+2) + 128·r·p bytes, which N ≥ 2 bounds by 256·N·r + 128·N·r·p.
export function passwordMemoryCap(caps: Readonly<Record<string, number>>): number {
  const c = caps as PasswordCaps
  return Math.max(
    c.password_argon2_memory_kib * 1024,
    256 * c.password_scrypt_n_r + 128 * c.password_scrypt_n_r_p,
  )
}

export function capsOf(plan: 'free' | 'pro' | 'business'): PasswordCaps {
  return Object.fromEntries(
    Object.entries(PASSWORD_CAPS).map(([name, row]) => [name, row[plan]]),
  ) as PasswordCaps
}

// 422 ERR_PLAN_CAP {cap, max, requested}: the request is well formed, the plan does not allow that much.
export function checkCap(caps: PasswordCaps, cap: PasswordCapName, requested: number, what: string): void {
  const max = caps[cap]
  if (requested > max) {
    throw new AppError('ERR_PLAN_CAP', `${what} ${requested} is over the plan's cap ${cap} = ${max}.`, {
      cap,
      max,
      requested,
    })
  }
}
