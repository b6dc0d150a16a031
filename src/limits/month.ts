// Quotas run on UTC calendar months. The boundaries are computed once per month, not per request.
export interface MonthInfo {
  month: string
  start: number
  end: number
  lengthSeconds: number
}

let cached: MonthInfo = computeMonth(0)

function computeMonth(ms: number): MonthInfo {
  const d = new Date(ms)
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
  return { month: d.toISOString().slice(0, 7), start, end, lengthSeconds: (end - start) / 1000 }
}

export function monthInfo(ms: number): MonthInfo {
  if (ms < cached.start || ms >= cached.end) cached = computeMonth(ms)
  return cached
}

export function monthOf(ms: number): string {
  return monthInfo(ms).month
}

const DAY_MS = 86_400_000
let day = { start: 0, end: 0, name: '' }

// called for every charged request: the day's name is built once per UTC day
export function dayOf(ms: number): string {
  if (ms < day.start || ms >= day.end) {
    const start = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS)
    day = {
      start,
      end: start + DAY_MS,
      name: `${monthInfo(ms).month}-${String(new Date(ms).getUTCDate()).padStart(2, '0')}`,
    }
  }
  return day.name
}

export function secondsToMonthEnd(ms: number): number {
  return Math.max(1, Math.ceil((monthInfo(ms).end - ms) / 1000))
}

export function monthLengthSeconds(ms: number): number {
  return monthInfo(ms).lengthSeconds
}
