// Proleptic Gregorian calendar arithmetic on plain integers. Wall-clock times are "wall seconds":
// seconds since 1970-01-01T00:00:00 of the civil calendar, with no zone attached. No Date getters are
// used, so the server's own time zone can never leak in (and Date.UTC's 0–99 → 1900s quirk cannot bite).

import { civilFromDays, daysFromCivil, daysInMonth } from '../time/civil.ts'

// The date arithmetic itself is shared with the time family (src/ops/time/civil.ts).
export { daysInMonth }

export interface Civil {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
}

export const DAY = 86_400
// Runs are searched and reported within years 1–9999, the range RFC 3339 can write.
export const MIN_WALL = wallFromCivil({ year: 1, month: 1, day: 1, hour: 0, minute: 0, second: 0 })
export const MAX_WALL = wallFromCivil({ year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59 })

// 0 = Sunday … 6 = Saturday; 1970-01-01 was a Thursday.
export function weekday(year: number, month: number, day: number): number {
  return (((daysFromCivil(year, month, day) + 4) % 7) + 7) % 7
}

export function wallFromCivil(c: Civil): number {
  return daysFromCivil(c.year, c.month, c.day) * DAY + c.hour * 3600 + c.minute * 60 + c.second
}

export function civilFromWall(wall: number): Civil {
  const days = Math.floor(wall / DAY)
  const rest = wall - days * DAY
  return {
    ...civilFromDays(days),
    hour: Math.floor(rest / 3600),
    minute: Math.floor((rest % 3600) / 60),
    second: rest % 60,
  }
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0')
}

// "YYYY-MM-DDTHH:MM:SS" of a wall time.
export function formatWall(wall: number): string {
  const c = civilFromWall(wall)
  return `${pad(c.year, 4)}-${pad(c.month)}-${pad(c.day)}T${pad(c.hour)}:${pad(c.minute)}:${pad(c.second)}`
}

// "+HH:MM", or "+HH:MM:SS" for the few historical offsets with seconds (e.g. Africa/Monrovia until 1972).
export function formatOffset(seconds: number): string {
  const sign = seconds < 0 ? '-' : '+'
  const abs = Math.abs(seconds)
  const base = `${sign}${pad(Math.floor(abs / 3600))}:${pad(Math.floor((abs % 3600) / 60))}`
  return abs % 60 === 0 ? base : `${base}:${pad(abs % 60)}`
}
