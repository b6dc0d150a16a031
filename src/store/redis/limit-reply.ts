import { decide, receipt } from '../../limits/decide.ts'
import { dayOf } from '../../limits/month.ts'
import type { ConsumeRequest, LimitDecision, RefusalReason } from '../types.ts'

// One candidate month as the consume script takes it: label (for the usage key) and bounds (ms since
// the epoch, UTC; end exclusive).
export interface MonthArgs {
  label: string
  start: number
  end: number
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
    start,
    end: Date.UTC(year, index + 1, 1),
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

// consume.lua's reply: per decision, its verdict and what it was decided on (see the script's header)
export const REPLY_STRIDE = 6
const VERDICTS: Record<RefusalReason, number> = { quota: 1, key_quota: 2, key_rate: 3, workspace_rate: 4 }

// One decision of the script's reply (REPLY_STRIDE numbers from `at`) → the decision the headers are built
// from: taken again here by the embedded store's function on the state the script decided on, so that
// every figure is computed as the embedded store computes it. A verdict that differs from the script's
// is an Error (a bug, answered 503 like a failed call), never a header that says something else than
// what was charged. The receipt names the month and day of the script's instant: the month the script
// charged, which is the one of its two candidates that holds that instant.
export function decodeDecision(r: readonly number[], at: number, req: ConsumeRequest): LimitDecision | Error {
  const now = r[at + 1]!
  const keyTat = r[at + 2]!
  const workspaceTat = r[at + 3]!
  const { decision } = decide(
    req,
    now,
    { key: keyTat < 0 ? undefined : keyTat, workspace: workspaceTat < 0 ? undefined : workspaceTat },
    { workspaceMonth: r[at + 4]!, keyMonth: r[at + 5]! },
  )
  const verdict = decision.reason === null ? 0 : VERDICTS[decision.reason]
  if (verdict !== r[at]) {
    return new Error(`anvil: consume.lua's verdict ${r[at]} differs from the gateway's ${verdict}`)
  }
  if (decision.allowed && req.rateOnly !== true) decision.charge = receipt(req, dayOf(now))
  return decision
}
