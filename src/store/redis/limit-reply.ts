import type { ConsumeRequest, LimitDecision, RefusalReason } from '../types.ts'

// One candidate month as the consume script takes it: label (for the usage key) and bounds as strings.
export interface MonthArgs {
  label: string
  start: string
  end: string
}

interface Candidates {
  start: number
  mid: number
  end: number
  current: MonthArgs
  previous: MonthArgs
  next: MonthArgs
}

let cached: Candidates | undefined

function month(year: number, index: number): MonthArgs {
  const start = Date.UTC(year, index, 1)
  return {
    label: new Date(start).toISOString().slice(0, 7),
    start: String(start),
    end: String(Date.UTC(year, index + 1, 1)),
  }
}

function compute(now: number): Candidates {
  const d = new Date(now)
  const [y, m] = [d.getUTCFullYear(), d.getUTCMonth()]
  const start = Date.UTC(y, m, 1)
  const end = Date.UTC(y, m + 1, 1)
  return {
    start,
    mid: (start + end) / 2,
    end,
    current: month(y, m),
    previous: month(y, m - 1),
    next: month(y, m + 1),
  }
}

// The consume script takes the month from its own clock (Redis TIME) and may only touch declared
// keys, so the caller declares the month its own clock says and the neighbouring month nearer to that
// instant: exact unless the two clocks disagree by about two weeks. Computed once per month.
export function candidateMonths(now: number): [MonthArgs, MonthArgs] {
  if (!cached || now < cached.start || now >= cached.end) cached = compute(now)
  return now < cached.mid ? [cached.current, cached.previous] : [cached.current, cached.next]
}

const REASONS: (RefusalReason | null)[] = [null, 'quota', 'key_quota', 'key_rate', 'workspace_rate']

// One decision of the script's reply (13 integers from `at`; see the header of consume.lua) → the decision
// the headers are built from. `months`: the two candidates the decision declared, in order (to name the
// month it charged).
export function decodeDecision(
  r: readonly number[],
  at: number,
  req: ConsumeRequest,
  months: readonly [MonthArgs, MonthArgs],
): LimitDecision {
  const monthReset = r[at + 8]!
  const monthWindow = r[at + 9]!
  const chargedIndex = r[at + 11]
  const charged = chargedIndex === 1 ? months[0] : chargedIndex === 2 ? months[1] : undefined
  return {
    allowed: r[at] === 1,
    charge: charged
      ? {
          workspaceId: req.workspaceId,
          keyId: req.keyId,
          ...(req.mode === 'test' ? { mode: 'test' as const } : {}),
          month: charged.label,
          day: String(r[at + 12]).padStart(2, '0'),
        }
      : null,
    reason: REASONS[r[at + 1]!] ?? null,
    retryAfter: r[at + 2]!,
    keySecond: { limit: req.keyRatePerSecond, remaining: r[at + 3]!, reset: r[at + 4]!, window: 1 },
    workspaceSecond: {
      limit: req.workspaceRatePerSecond,
      remaining: r[at + 5]!,
      reset: r[at + 6]!,
      window: 1,
    },
    month: { limit: req.monthlyQuota, remaining: r[at + 7]!, reset: monthReset, window: monthWindow },
    keyMonth:
      req.keyMonthlyQuota === null
        ? null
        : { limit: req.keyMonthlyQuota, remaining: r[at + 10]!, reset: monthReset, window: monthWindow },
  }
}
