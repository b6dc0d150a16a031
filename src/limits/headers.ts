import type { LimitDecision } from './decision.ts'

// IETF httpapi RateLimit headers, draft-11 structured-field syntax:
//   RateLimit-Policy: "second";q=50;w=1, "workspace-second";q=100;w=1, "month";q=1000000;w=2592000
//   RateLimit: "second";r=49;t=1, "workspace-second";r=99;t=1, "month";r=999999;t=1234567
// The policy changes only with the limits or the month's length: built once per distinct set.
const policies = new Map<string, string>()

export function rateLimitHeaders(d: LimitDecision): { policy: string; state: string } {
  const km = d.keyMonth
  const id = `${d.keySecond.limit}|${d.workspaceSecond.limit}|${d.month.limit}|${d.month.window}|${km?.limit ?? ''}`
  let policy = policies.get(id)
  if (policy === undefined) {
    policy =
      `"second";q=${d.keySecond.limit};w=1, "workspace-second";q=${d.workspaceSecond.limit};w=1, ` +
      `"month";q=${d.month.limit};w=${d.month.window}` +
      (km ? `, "key-month";q=${km.limit};w=${km.window}` : '')
    if (policies.size > 10_000) policies.clear()
    policies.set(id, policy)
  }
  const state =
    `"second";r=${d.keySecond.remaining};t=${d.keySecond.reset}, ` +
    `"workspace-second";r=${d.workspaceSecond.remaining};t=${d.workspaceSecond.reset}, ` +
    `"month";r=${d.month.remaining};t=${d.month.reset}` +
    (km ? `, "key-month";r=${km.remaining};t=${km.reset}` : '')
  return { policy, state }
}
