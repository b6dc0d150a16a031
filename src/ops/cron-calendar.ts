// Proleptic Gregorian calendar arithmetic on plain integers. Wall-clock times are "wall seconds":
// seconds since 1970-01-01T00:00:00 of the civil calendar, with no zone attached. No Date getters are
// used, so the server's own time zone can never leak in (and Date.UTC's 0–99 → 1900s quirk cannot bite).

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

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : MONTH_DAYS[month - 1]!
}

// Days since 1970-01-01 (Howard Hinnant's days_from_civil).
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146_097 + doe - 719_468
}

export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  )
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day }
}

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
