import { expect } from 'vitest'
import type { AccountStore, BackoffPolicy } from '../../../src/accounts/store/types.ts'

// The growing-delay semantics both account stores must share (memory and Redis), at an injected time.
export async function expectBackoffSemantics(store: AccountStore, name: string, t0: number): Promise<void> {
  const policy: BackoffPolicy = { free: 2, baseMs: 1_000, maxMs: 4_000, forgetMs: 60_000 }
  const take = (now: number) => store.takeAttempt(name, policy, now)
  expect(await take(t0)).toEqual({ allowed: true, attempts: 1, next_at: t0 })
  expect(await take(t0)).toEqual({ allowed: true, attempts: 2, next_at: t0 + 1_000 })
  // refused before next_at, and a refusal changes nothing
  expect(await take(t0 + 999)).toEqual({ allowed: false, attempts: 2, next_at: t0 + 1_000 })
  expect(await take(t0 + 999)).toEqual({ allowed: false, attempts: 2, next_at: t0 + 1_000 })
  expect(await take(t0 + 1_000)).toEqual({ allowed: true, attempts: 3, next_at: t0 + 3_000 })
  expect(await take(t0 + 3_000)).toEqual({ allowed: true, attempts: 4, next_at: t0 + 7_000 })
  // capped at maxMs
  expect(await take(t0 + 7_000)).toEqual({ allowed: true, attempts: 5, next_at: t0 + 11_000 })
  await store.clearAttempts(name)
  expect(await take(t0 + 7_001)).toEqual({ allowed: true, attempts: 1, next_at: t0 + 7_001 })
  await store.clearAttempts(name)
  // parallel attempts cannot slip past together: exactly the free ones and the first delayed one
  const burst = await Promise.all(
    Array.from({ length: 10 }, () => store.takeAttempt(`${name}:burst`, { ...policy, free: 3 }, t0)),
  )
  expect(burst.filter((b) => b.allowed)).toHaveLength(3)
}
