import {
  civilFromDays,
  floorDiv,
  formatYear,
  isoWeekday,
  NS_PER_SECOND,
  pad,
  SECONDS_PER_DAY,
} from './civil.ts'
import { DAY_NAMES, type DayName } from './types.ts'
import { formatOffset } from './zone.ts'

export { DAY_NAMES, type DayName }

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

export interface Breakdown {
  days: number
  hour: number
  minute: number
  second: number
  nanos: number
}

export function breakdown(ns: bigint): Breakdown {
  const seconds = floorDiv(ns, NS_PER_SECOND)
  const nanos = Number(ns - seconds * NS_PER_SECOND)
  const days = Number(floorDiv(seconds, BigInt(SECONDS_PER_DAY)))
  const ofDay = Number(seconds) - days * SECONDS_PER_DAY
  return {
    days,
    hour: Math.floor(ofDay / 3600),
    minute: Math.floor((ofDay % 3600) / 60),
    second: ofDay % 60,
    nanos,
  }
}

// The shortest of 3, 6 or 9 fraction digits that is exact; `minimum` 3 matches Date#toISOString.
function fraction(nanos: number, minimum: 0 | 3): string {
  if (nanos === 0) return minimum === 0 ? '' : '.000'
  const digits = pad(nanos, 9)
  if (nanos % 1_000_000 === 0) return `.${digits.slice(0, 3)}`
  if (nanos % 1000 === 0) return `.${digits.slice(0, 6)}`
  return `.${digits}`
}

function dateTime(b: Breakdown): string {
  const d = civilFromDays(b.days)
  return `${formatYear(d.year)}-${pad(d.month, 2)}-${pad(d.day, 2)}T${pad(b.hour, 2)}:${pad(b.minute, 2)}:${pad(b.second, 2)}`
}

export function formatIsoUtc(ns: bigint): string {
  const b = breakdown(ns)
  return `${dateTime(b)}${fraction(b.nanos, 3)}Z`
}

// RFC 3339 offsets have whole minutes; a local-mean-time offset with seconds is rounded, and the wall
// clock printed is instant + rounded offset, so the string still denotes the exact instant.
function minuteOffset(offsetSeconds: number): number {
  return Math.round(offsetSeconds / 60) * 60
}

export function formatRfc3339Local(ns: bigint, offsetSeconds: number): string {
  const offset = minuteOffset(offsetSeconds)
  const b = breakdown(ns + BigInt(offset) * NS_PER_SECOND)
  return `${dateTime(b)}${fraction(b.nanos, 0)}${formatOffset(offset)}`
}

// RFC 2822 §3.3 has whole seconds and years from 1900 on (4 digits here); null outside that.
export function formatRfc2822(ns: bigint, offsetSeconds: number): string | null {
  const offset = minuteOffset(offsetSeconds)
  const b = breakdown(ns + BigInt(offset) * NS_PER_SECOND)
  const d = civilFromDays(b.days)
  if (d.year < 1900 || d.year > 9999) return null
  const weekday = DAY_NAMES[isoWeekday(b.days) - 1]!.slice(0, 3)
  return `${weekday}, ${pad(d.day, 2)} ${MONTHS[d.month - 1]} ${d.year} ${pad(b.hour, 2)}:${pad(b.minute, 2)}:${pad(b.second, 2)} ${formatOffset(offset, false)}`
}
