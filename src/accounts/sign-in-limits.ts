import { addressBucket } from '../lib/address-bucket.ts'
import type { AccountStore, BackoffPolicy, CounterWindow } from './store/types.ts'

const MINUTE = 60_000

// Sign-in attempts are limited per (account, address) and per address, each with a growing delay,
// never per account alone: a stranger elsewhere can slow only their own guesses, never lock the owner
// out. Attempts are counted when they start, not when they fail, so a burst of parallel guesses cannot
// all slip past before the first failure lands; a successful sign-in clears the (account, address)
// count, which makes that limit one of failures in practice. The per-address count is not cleared by a
// success (an attacker could otherwise reset it by signing in to an account of their own).
export const SIGN_IN_LIMITS = {
  // 5 back to back, then 1 s, 2 s, 4 s … up to 15 min between attempts on one account from one address
  accountAddress: { free: 5, baseMs: 1_000, maxMs: 15 * MINUTE, forgetMs: 15 * MINUTE },
  // 20 back to back from one address across all accounts, then the same growing delay
  ip: { free: 20, baseMs: 1_000, maxMs: 15 * MINUTE, forgetMs: 15 * MINUTE },
  signUpIp: { max: 10, windowMs: 60 * MINUTE },
} as const satisfies Record<string, BackoffPolicy | { max: number; windowMs: number }>

export type LimitOutcome = { allowed: true } | { allowed: false; retryAfterSeconds: number }

function over(window: CounterWindow, max: number, now: number): number | null {
  return window.count > max ? Math.max(1, Math.ceil((window.reset_at - now) / 1000)) : null
}

function outcome(waits: (number | null)[]): LimitOutcome {
  const refused = waits.filter((w): w is number => w !== null)
  return refused.length === 0
    ? { allowed: true }
    : { allowed: false, retryAfterSeconds: Math.max(...refused) }
}

const pairName = (email: string, ip: string) => `signin:account-ip:${addressBucket(ip)}:${email}`

// Unknown and known emails are charged alike, so the limiter tells an attacker nothing either. The
// (account, address) pair is asked first: a guess it refuses does not spend the address's budget,
// which other people behind the same address (a NAT, an office) share.
export async function chargeSignIn(
  accounts: AccountStore,
  email: string,
  ip: string,
  now: number,
): Promise<LimitOutcome> {
  const { accountAddress, ip: perIp } = SIGN_IN_LIMITS
  const pair = await accounts.takeAttempt(pairName(email, ip), accountAddress, now)
  if (!pair.allowed) return waitUntil(pair.next_at, now)
  const address = await accounts.takeAttempt(`signin:ip:${addressBucket(ip)}`, perIp, now)
  return address.allowed ? { allowed: true } : waitUntil(address.next_at, now)
}

function waitUntil(at: number, now: number): LimitOutcome {
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((at - now) / 1000)) }
}

export function signInSucceeded(accounts: AccountStore, email: string, ip: string): Promise<void> {
  return accounts.clearAttempts(pairName(email, ip))
}

export async function chargeSignUp(accounts: AccountStore, ip: string, now: number): Promise<LimitOutcome> {
  const { signUpIp } = SIGN_IN_LIMITS
  const w = await accounts.hitCounter(`signup:ip:${addressBucket(ip)}`, signUpIp.windowMs, now)
  return outcome([over(w, signUpIp.max, now)])
}
