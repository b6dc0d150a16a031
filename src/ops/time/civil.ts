// Proleptic Gregorian calendar arithmetic on day counts (days since 1970-01-01), after Howard Hinnant's
// civil_from_days / days_from_civil. Plain integers, so no Date object and no host time zone is involved.

export const NS_PER_SECOND = 1_000_000_000n
export const SECONDS_PER_DAY = 86_400

export interface CivilDate {
  year: number
  month: number
  day: number
}

export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}

export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146_097 + doe - 719_468
}

export function civilFromDays(days: number): CivilDate {
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

// 1 = Monday … 7 = Sunday; 1970-01-01 was a Thursday.
export function isoWeekday(days: number): number {
  return ((((days + 3) % 7) + 7) % 7) + 1
}

export function dayOfYear(days: number): number {
  return days - daysFromCivil(civilFromDays(days).year, 1, 1) + 1
}

// The ISO week-numbering year can differ from the calendar year near 1 January.
export function isoWeek(days: number): { year: number; week: number } {
  const thursday = days - isoWeekday(days) + 4
  const year = civilFromDays(thursday).year
  return { year, week: Math.floor((thursday - daysFromCivil(year, 1, 1)) / 7) + 1 }
}

export function weeksInIsoYear(year: number): number {
  return isoWeek(daysFromCivil(year, 12, 28)).week
}

// Day count of weekday `weekday` of ISO week `week` in ISO year `year`.
export function daysFromIsoWeek(year: number, week: number, weekday: number): number {
  const jan4 = daysFromCivil(year, 1, 4)
  return jan4 - isoWeekday(jan4) + 1 + (week - 1) * 7 + (weekday - 1)
}

export function pad(n: number, width: number): string {
  return String(n).padStart(width, '0')
}

// ISO 8601 / RFC 3339 year: four digits when it fits, else the expanded ±YYYYYY form (as Date#toISOString).
export function formatYear(year: number): string {
  if (year >= 0 && year <= 9999) return pad(year, 4)
  return (year < 0 ? '-' : '+') + pad(Math.abs(year), 6)
}
