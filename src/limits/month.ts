// Quotas run on UTC calendar months.
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7)
}

export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

export function monthBounds(ms: number): { start: number; end: number } {
  const d = new Date(ms)
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
  return { start, end }
}

export function secondsToMonthEnd(ms: number): number {
  return Math.max(1, Math.ceil((monthBounds(ms).end - ms) / 1000))
}

export function monthLengthSeconds(ms: number): number {
  const { start, end } = monthBounds(ms)
  return (end - start) / 1000
}
