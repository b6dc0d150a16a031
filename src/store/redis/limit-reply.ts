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

// The script's integer array (see the header of consume.lua) → the decision the headers are built from.
// `months`: the two candidates the call declared, in order (to name the month it charged).
export function decodeDecision(
  r: number[],
  req: ConsumeRequest,
  months: readonly [MonthArgs, MonthArgs],
): LimitDecision {
  const monthReset = r[8]!
  const monthWindow = r[9]!
  const charged = r[11] === 1 ? months[0] : r[11] === 2 ? months[1] : undefined
  return {
    allowed: r[0] === 1,
    charge: charged
      ? {
          workspaceId: req.workspaceId,
          keyId: req.keyId,
          month: charged.label,
          day: String(r[12]).padStart(2, '0'),
        }
      : null,
    reason: REASONS[r[1]!] ?? null,
    retryAfter: r[2]!,
    keySecond: { limit: req.keyRatePerSecond, remaining: r[3]!, reset: r[4]!, window: 1 },
    workspaceSecond: { limit: req.workspaceRatePerSecond, remaining: r[5]!, reset: r[6]!, window: 1 },
    month: { limit: req.monthlyQuota, remaining: r[7]!, reset: monthReset, window: monthWindow },
    keyMonth:
      req.keyMonthlyQuota === null
        ? null
        : { limit: req.keyMonthlyQuota, remaining: r[10]!, reset: monthReset, window: monthWindow },
  }
}
