import type { LimitDecision } from './decision.ts'

// IETF httpapi RateLimit headers, draft-11 structured-field syntax:
//   RateLimit-Policy: "second";q=50;w=1, "workspace-second";q=100;w=1, "month";q=1000000;w=2592000
//   RateLimit: "second";r=49;t=1, "workspace-second";r=99;t=1, "month";r=999999;t=1234567
// The policy changes only with the limits or the month's length: built once per set of limits, kept beside
// the object that holds them (`owner`: a workspace's effective limits, the same object request after request)
// and rebuilt when the month's length or a key's own quota differs from the last one seen with it.
interface Kept {
  keySecond: number
  workspaceSecond: number
  month: number
  window: number
  keyMonth: number | undefined
  policy: string
}
const policies = new WeakMap<object, Kept>()

export function rateLimitPolicy(d: LimitDecision, owner: object): string {
  const km = d.keyMonth
  const kept = policies.get(owner)
  if (
    kept !== undefined &&
    kept.keySecond === d.keySecond.limit &&
    kept.workspaceSecond === d.workspaceSecond.limit &&
    kept.month === d.month.limit &&
    kept.window === d.month.window &&
    kept.keyMonth === km?.limit
  ) {
    return kept.policy
  }
  const policy =
    `"second";q=${d.keySecond.limit};w=1, "workspace-second";q=${d.workspaceSecond.limit};w=1, ` +
    `"month";q=${d.month.limit};w=${d.month.window}` +
    (km ? `, "key-month";q=${km.limit};w=${km.window}` : '')
  policies.set(owner, {
    keySecond: d.keySecond.limit,
    workspaceSecond: d.workspaceSecond.limit,
    month: d.month.limit,
    window: d.month.window,
    keyMonth: km?.limit,
    policy,
  })
  return policy
}

// What is left of each policy now.
export function rateLimitState(d: LimitDecision): string {
  const km = d.keyMonth
  return (
    `"second";r=${d.keySecond.remaining};t=${d.keySecond.reset}, ` +
    `"workspace-second";r=${d.workspaceSecond.remaining};t=${d.workspaceSecond.reset}, ` +
    `"month";r=${d.month.remaining};t=${d.month.reset}` +
    (km ? `, "key-month";r=${km.remaining};t=${km.reset}` : '')
  )
}
