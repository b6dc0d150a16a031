// What the limiter is asked for one request, and what it decides: both rates and both quotas, in one
// store call (src/store/: memory or one Lua script on Redis), read by the RateLimit headers (headers.ts).

// A key's mode. Test-mode traffic is limited apart from live traffic (docs/api.md, "Test mode"): its own
// workspace per-second bucket and its own monthly counter, each at the plan's figure, so a test suite never
// uses up what production has, nor production what tests have.
export type LimitMode = 'live' | 'test'

// Whose workspace-wide rate and monthly count a request moves: the workspace's, or its test mode's. The
// embedded store keys its counters by it; Redis keeps test mode in usage hashes of their own.
export function limitSubject(workspaceId: string, mode: LimitMode | undefined): string {
  return mode === 'test' ? `${workspaceId}~test` : workspaceId
}

// Everything the limiter needs for one request, decided in one call (one Lua script on Redis).
export interface ConsumeRequest {
  workspaceId: string
  keyId: string
  // the key's mode (absent: live)
  mode?: LimitMode
  keyRatePerSecond: number
  workspaceRatePerSecond: number
  monthlyQuota: number
  keyMonthlyQuota: number | null
  // true: the per-second limits decide (and move) alone; the monthly quotas are neither checked nor
  // charged and no usage counter moves (job status polls: route config `charge: 'rate-only'`)
  rateOnly?: boolean
}

export interface PolicyState {
  limit: number
  remaining: number
  // seconds until the window is fully replenished (rate) or resets (month)
  reset: number
  window: number
}

export type RefusalReason = 'key_rate' | 'workspace_rate' | 'quota' | 'key_quota'

// What an admitted request was charged, so that exactly that can be given back (Store.refund): the
// month and day are the store's own (Redis TIME on Redis), which may differ from the gateway's clock.
export interface Charge {
  workspaceId: string
  keyId: string
  // present for a test-mode request, whose counters are apart
  mode?: 'test'
  // UTC month 'YYYY-MM' and day of month 'DD' the request was counted in
  month: string
  day: string
}

export interface LimitDecision {
  allowed: boolean
  // set when allowed: the receipt for a refund
  charge: Charge | null
  reason: RefusalReason | null
  retryAfter: number
  keySecond: PolicyState
  workspaceSecond: PolicyState
  month: PolicyState
  keyMonth: PolicyState | null
}
