import { AppError } from '../../errors.ts'
import { MAX_DURATION_SECONDS, MAX_NUMERIC_DATE } from './types.ts'

export { MAX_DURATION_SECONDS, MAX_NUMERIC_DATE }

// `at` arrives as Unix seconds or an ISO 8601 / RFC 3339 string (the route schema checks the form).
export type ReferenceTime = number | string

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800, y: 31_557_600 }
const DURATION =
  /^([+-])? ?(\d+|\d+\.\d+) ?(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|years?|yrs?|y)$/i

// Whole seconds since the epoch, floored like jose floors its clock, so inspect and verify agree.
export function referenceSeconds(at: ReferenceTime | undefined): number {
  const ms = at === undefined ? Date.now() : typeof at === 'number' ? at * 1000 : Date.parse(at)
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_NUMERIC_DATE * 1000) {
    throw new AppError('ERR_VALIDATION', undefined, {
      issues: [{ path: 'at', message: 'must be Unix seconds or an ISO 8601 date-time with an offset' }],
    })
  }
  return Math.floor(ms / 1000)
}

// Seconds, or a span such as "2h", "30 minutes", "1.5 days" (the same grammar jose accepts).
export function parseDuration(value: number | string, field: string): number {
  let seconds = Number.NaN
  if (typeof value === 'number') seconds = Math.round(value)
  else {
    const m = DURATION.exec(value.trim())
    if (m) {
      const unit = UNIT_SECONDS[m[3]!.charAt(0).toLowerCase()]!
      seconds = Math.round(Number.parseFloat(m[2]!) * unit) * (m[1] === '-' ? -1 : 1)
    }
  }
  if (!Number.isFinite(seconds) || Math.abs(seconds) > MAX_DURATION_SECONDS) {
    throw new AppError('ERR_VALIDATION', undefined, {
      issues: [
        {
          path: field,
          message: 'must be seconds or a span like "90s", "15m", "2h", "7d", "1y" (at most 100 years)',
        },
      ],
    })
  }
  return seconds
}

export function isoOf(seconds: number): string | null {
  if (!Number.isFinite(seconds) || Math.abs(seconds) > MAX_NUMERIC_DATE) return null
  return new Date(seconds * 1000).toISOString()
}

// made on first use: loading ICU's relative-time data costs ~8 MiB of RSS in every process and thread
// that loads this module, most of which never format a relative time (issue 18)
let relativeFormat: Intl.RelativeTimeFormat | undefined
const relative = () => (relativeFormat ??= new Intl.RelativeTimeFormat('en', { numeric: 'always' }))
const STEPS: [Intl.RelativeTimeFormatUnit, number, number][] = [
  ['second', 1, 60],
  ['minute', 60, 3600],
  ['hour', 3600, 86400],
  ['day', 86400, 30 * 86400],
  ['month', 30 * 86400, 365 * 86400],
  ['year', 365 * 86400, Number.POSITIVE_INFINITY],
]

// "in 2 hours", "3 days ago", "now": the largest whole unit, truncated toward the reference time.
export function relativeTo(seconds: number, reference: number): string {
  const diff = seconds - reference
  const size = Math.abs(diff)
  if (size < 1) return 'now'
  const [unit, unitSeconds] = STEPS.find(([, , below]) => size < below)!
  return relative().format(Math.trunc(diff / unitSeconds), unit)
}
