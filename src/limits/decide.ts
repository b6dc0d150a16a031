import type { Charge, ConsumeRequest, LimitDecision, PolicyState } from './decision.ts'
import { gcra, gcraPeek } from './gcra.ts'
import { monthLengthSeconds, secondsToMonthEnd } from './month.ts'

export interface Counters {
  workspaceMonth: number
  keyMonth: number
}

// Decides key rate, workspace rate and monthly quotas together; nothing is charged unless all admit.
// Returns the decision plus the state to commit (the caller commits only when allowed). Both stores'
// decisions are built here: the embedded store's on its own state, the Redis store's on the state
// consume.lua decided on (the script admits with the same arithmetic and returns what it read, so that
// the figures of the headers are computed once, in JavaScript; src/store/redis/consume-batch.ts).
export function decide(
  req: ConsumeRequest,
  now: number,
  tats: { key: number | undefined; workspace: number | undefined },
  counters: Counters,
): { decision: LimitDecision; keyTat: number; workspaceTat: number } {
  const keyRate = gcra(tats.key, now, req.keyRatePerSecond)
  const wsRate = gcra(tats.workspace, now, req.workspaceRatePerSecond)
  const monthEnd = secondsToMonthEnd(now)
  const monthWindow = monthLengthSeconds(now)
  // rate-only (job status polls): the monthly quotas are reported, never checked nor charged
  const charging = req.rateOnly !== true
  const quotaOk = !charging || counters.workspaceMonth < req.monthlyQuota
  const keyQuotaOk = !charging || req.keyMonthlyQuota === null || counters.keyMonth < req.keyMonthlyQuota
  const allowed = keyRate.allowed && wsRate.allowed && quotaOk && keyQuotaOk
  const reason: LimitDecision['reason'] = !quotaOk
    ? 'quota'
    : !keyQuotaOk
      ? 'key_quota'
      : !keyRate.allowed
        ? 'key_rate'
        : !wsRate.allowed
          ? 'workspace_rate'
          : null

  const keyState = allowed ? keyRate : gcraPeek(tats.key, now, req.keyRatePerSecond)
  const wsState = allowed ? wsRate : gcraPeek(tats.workspace, now, req.workspaceRatePerSecond)
  const charged = allowed && charging ? 1 : 0
  const rate = (r: typeof keyRate, limit: number): PolicyState => ({
    limit,
    remaining: r.remaining,
    reset: r.reset,
    window: 1,
  })
  const decision: LimitDecision = {
    allowed,
    // the caller that commits the charge fills in the receipt
    charge: null,
    reason,
    retryAfter: allowed
      ? 0
      : reason === 'quota' || reason === 'key_quota'
        ? monthEnd
        : Math.max(keyRate.retryAfter, wsRate.retryAfter, 1),
    keySecond: rate(keyState, req.keyRatePerSecond),
    workspaceSecond: rate(wsState, req.workspaceRatePerSecond),
    month: {
      limit: req.monthlyQuota,
      remaining: Math.max(0, req.monthlyQuota - counters.workspaceMonth - charged),
      reset: monthEnd,
      window: monthWindow,
    },
    keyMonth:
      req.keyMonthlyQuota === null
        ? null
        : {
            limit: req.keyMonthlyQuota,
            remaining: Math.max(0, req.keyMonthlyQuota - counters.keyMonth - charged),
            reset: monthEnd,
            window: monthWindow,
          },
  }
  return { decision, keyTat: keyState.tat, workspaceTat: wsState.tat }
}

// The receipt of a charged decision (what a refund gives back): the UTC month and day of its instant
// (`day`: dayOf's name of it, YYYY-MM-DD), as both stores count them.
export function receipt(req: ConsumeRequest, day: string): Charge {
  return {
    workspaceId: req.workspaceId,
    keyId: req.keyId,
    ...(req.mode === 'test' ? { mode: 'test' as const } : {}),
    month: day.slice(0, 7),
    day: day.slice(8, 10),
  }
}
