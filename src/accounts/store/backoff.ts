import type { BackoffPolicy } from './types.ts'

// When the attempt after `attempts` admitted ones may come (the same arithmetic as backoff.lua).
export function nextAttemptAt(policy: BackoffPolicy, attempts: number, now: number): number {
  if (attempts < policy.free) return now
  return now + Math.min(policy.baseMs * 2 ** (attempts - policy.free), policy.maxMs)
}
