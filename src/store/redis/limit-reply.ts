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

// consume.lua's reply: per run of decisions (consecutive decisions of one subject at one instant, in
// arrival order; a turn's requests on one key are one run), the values the run started from, how many it
// admitted and the verdict of the rest (see the script's header)
export const RUN_STRIDE = 7
const VERDICTS: Record<RefusalReason, number> = { quota: 1, key_quota: 2, key_rate: 3, workspace_rate: 4 }
// the run's reason when the script's clock was in neither month: every decision of the run is an error
const CLOCK_ERROR = -1

// One run of the script's reply (RUN_STRIDE numbers from `at`) → its decisions, one per request of `reqs`
// (the run's, in order). Each is taken again here by the embedded store's function (decide(),
// src/limits/decide.ts) on the state the one before it left, moved as decide() moves it (the script's
// arithmetic on the same doubles), so every figure is computed as the embedded store computes it. The
// script's verdict for each: admitted for the first `admitted`, the run's reason for the rest (a refusal
// moves nothing, so every decision after a run's first refusal is refused for the same reason). A verdict
// that differs from the gateway's is an Error (a bug, answered 503 like a failed call), and so is every
// decision of the run after it, whose state is then unknown: never a header that says something else than
// what was charged. The receipt names the month and day of the script's instant: the month the script
// charged, which is the one of its two candidates that holds that instant.
export function decodeRun(
  r: readonly number[],
  at: number,
  reqs: readonly ConsumeRequest[],
): (LimitDecision | Error)[] {
  const now = r[at]!
  let keyTat = r[at + 1]! < 0 ? undefined : r[at + 1]
  let workspaceTat = r[at + 2]! < 0 ? undefined : r[at + 2]
  let workspaceMonth = r[at + 3]!
  let keyMonth = r[at + 4]!
  const admitted = r[at + 5]!
  const reason = r[at + 6]!
  if (reason === CLOCK_ERROR) return reqs.map(clockError)
  if (admitted > reqs.length || (admitted < reqs.length && reason === 0)) {
    const err = new Error(
      `anvil: consume.lua admitted ${admitted} of a run of ${reqs.length}, then ${reason}`,
    )
    return reqs.map(() => err)
  }
  const out: (LimitDecision | Error)[] = []
  let failed: Error | undefined
  for (let i = 0; i < reqs.length; i++) {
    const req = reqs[i]!
    if (failed) {
      out.push(failed)
      continue
    }
    const expected = i < admitted ? 0 : reason
    const next = decide(req, now, { key: keyTat, workspace: workspaceTat }, { workspaceMonth, keyMonth })
    const { decision } = next
    const verdict = decision.reason === null ? 0 : VERDICTS[decision.reason]
    if (verdict !== expected) {
      failed = new Error(`anvil: consume.lua's verdict ${expected} differs from the gateway's ${verdict}`)
      out.push(failed)
      continue
    }
    if (decision.allowed) {
      keyTat = next.keyTat
      workspaceTat = next.workspaceTat
      if (req.rateOnly !== true) {
        decision.charge = receipt(req, dayOf(now))
        workspaceMonth++
        keyMonth++
      }
    }
    out.push(decision)
  }
  return out
}

function clockError(): Error {
  return new Error('ERR anvil: the script clock is outside both months the caller expected')
}
