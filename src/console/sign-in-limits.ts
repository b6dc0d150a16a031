import type { AccountStore, CounterWindow } from './store/types.ts'

const MINUTE = 60_000

// Attempts are counted when they start, not when they fail, so a burst of parallel guesses cannot
// all slip past the check before the first failure lands; a successful sign-in clears the account's
// count, which makes the account limit one of failures in practice.
export const SIGN_IN_LIMITS = {
  account: { max: 5, windowMs: 15 * MINUTE },
  ip: { max: 20, windowMs: 15 * MINUTE },
  signUpIp: { max: 10, windowMs: 60 * MINUTE },
} as const

export type LimitOutcome = { allowed: true } | { allowed: false; retryAfterSeconds: number }

// The per-address counters count an IPv6 client by its /64: one host usually holds a whole /64, so
// counting single addresses would let it take a fresh one for every guess.
export function addressBucket(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  if (mapped) return mapped[1]!
  if (!ip.includes(':')) return ip
  const [head = '', tail = ''] = ip.split('%')[0]!.split('::')
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`
}

function over(window: CounterWindow, max: number, now: number): number | null {
  return window.count > max ? Math.max(1, Math.ceil((window.reset_at - now) / 1000)) : null
}

function outcome(waits: (number | null)[]): LimitOutcome {
  const refused = waits.filter((w): w is number => w !== null)
  return refused.length === 0
    ? { allowed: true }
    : { allowed: false, retryAfterSeconds: Math.max(...refused) }
}

// Unknown and known emails are charged alike, so the limiter tells an attacker nothing either.
export async function chargeSignIn(
  accounts: AccountStore,
  email: string,
  ip: string,
  now: number,
): Promise<LimitOutcome> {
  const { account, ip: perIp } = SIGN_IN_LIMITS
  const [a, i] = await Promise.all([
    accounts.hitCounter(`signin:account:${email}`, account.windowMs, now),
    accounts.hitCounter(`signin:ip:${addressBucket(ip)}`, perIp.windowMs, now),
  ])
  return outcome([over(a, account.max, now), over(i, perIp.max, now)])
}

export function signInSucceeded(accounts: AccountStore, email: string): Promise<void> {
  return accounts.clearCounter(`signin:account:${email}`)
}

export async function chargeSignUp(accounts: AccountStore, ip: string, now: number): Promise<LimitOutcome> {
  const { signUpIp } = SIGN_IN_LIMITS
  const w = await accounts.hitCounter(`signup:ip:${addressBucket(ip)}`, signUpIp.windowMs, now)
  return outcome([over(w, signUpIp.max, now)])
}
