import type { LimitDecision, PolicyState } from '../store/types.ts'

// IETF httpapi RateLimit headers, draft-11 structured-field syntax:
//   RateLimit-Policy: "second";q=50;w=1, "workspace-second";q=100;w=1, "month";q=1000000;w=2592000
//   RateLimit: "second";r=49;t=1, "workspace-second";r=99;t=1, "month";r=999999;t=1234567
export function rateLimitHeaders(d: LimitDecision): { policy: string; state: string } {
  const entries: [string, PolicyState][] = [
    ['second', d.keySecond],
    ['workspace-second', d.workspaceSecond],
    ['month', d.month],
  ]
  if (d.keyMonth) entries.push(['key-month', d.keyMonth])
  return {
    policy: entries.map(([n, p]) => `"${n}";q=${p.limit};w=${p.window}`).join(', '),
    state: entries.map(([n, p]) => `"${n}";r=${p.remaining};t=${p.reset}`).join(', '),
  }
}
