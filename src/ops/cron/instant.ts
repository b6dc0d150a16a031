import { AppError } from '../../errors.ts'
import { DAY, daysInMonth, MAX_WALL, MIN_WALL, wallFromCivil } from './calendar.ts'

// An RFC 3339 / ISO 8601 instant: date, time and an offset (Z or ±HH:MM). Without an offset a wall time
// names no single instant, so it is refused rather than read in the server's zone.
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/

function invalid(field: string, value: string, reason: string): AppError {
  return new AppError('ERR_INVALID_TIMESTAMP', `Invalid ${field}: ${reason}`, { field, value, reason })
}

// Epoch milliseconds; digits beyond milliseconds are dropped.
export function parseInstant(value: string, field: string): number {
  const m = INSTANT.exec(value)
  if (!m) throw invalid(field, value, 'expected an ISO 8601 instant such as 2024-03-10T12:00:00Z')
  const num = (i: number) => Number(m[i] ?? 0)
  const [year, month, day, hour, minute, second] = [num(1), num(2), num(3), num(4), num(5), num(6)]
  if (m[8] === undefined && m[9] === undefined) {
    throw invalid(field, value, 'an offset is required (Z or ±HH:MM)')
  }
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw invalid(field, value, 'no such date')
  }
  if (hour > 23 || minute > 59 || second > 59) throw invalid(field, value, 'no such time of day')
  const offsetHours = num(10)
  const offsetMinutes = num(11)
  if (offsetHours > 23 || offsetMinutes > 59) throw invalid(field, value, 'no such offset')
  const offset = (m[9] === '-' ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60)
  const seconds = wallFromCivil({ year, month, day, hour, minute, second }) - offset
  // a day inside the years 1–9999, so that its wall time in every zone stays within them too
  if (seconds < MIN_WALL + DAY || seconds > MAX_WALL - DAY) {
    throw invalid(field, value, 'outside the supported range 0001-01-02T00:00:00Z to 9999-12-30T23:59:59Z')
  }
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3))
  return seconds * 1000 + millis
}
