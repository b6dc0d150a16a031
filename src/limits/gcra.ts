// GCRA (generic cell rate algorithm): a token bucket of `rate` tokens refilled continuously at `rate`
// per second, kept as one number, the theoretical arrival time (TAT). The Redis Lua script uses the
// same arithmetic, so both stores admit exactly the same sequences.
export interface GcraResult {
  allowed: boolean
  tat: number
  remaining: number
  // seconds until the bucket is full again
  reset: number
  // seconds until one more request would be admitted (only meaningful when refused)
  retryAfter: number
}

export function gcra(previousTat: number | undefined, nowMs: number, ratePerSecond: number): GcraResult {
  const interval = 1000 / ratePerSecond
  const burstWindow = 1000
  const tat = Math.max(previousTat ?? nowMs, nowMs)
  const newTat = tat + interval
  const allowAt = newTat - burstWindow
  if (allowAt > nowMs + 1e-9) {
    return {
      allowed: false,
      tat,
      remaining: 0,
      reset: Math.max(1, Math.ceil((tat - nowMs) / 1000)),
      retryAfter: Math.max(1, Math.ceil((allowAt - nowMs) / 1000)),
    }
  }
  return {
    allowed: true,
    tat: newTat,
    remaining: Math.max(0, Math.floor((burstWindow - (newTat - nowMs)) / interval + 1e-9)),
    reset: Math.max(1, Math.ceil((newTat - nowMs) / 1000)),
    retryAfter: 0,
  }
}

// The decision without charging: what gcra() would say, used when another policy refuses.
export function gcraPeek(previousTat: number | undefined, nowMs: number, ratePerSecond: number): GcraResult {
  const r = gcra(previousTat, nowMs, ratePerSecond)
  if (!r.allowed) return r
  return { ...r, tat: Math.max(previousTat ?? nowMs, nowMs), remaining: r.remaining + 1 }
}
