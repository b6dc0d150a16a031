import { dayOfYear, floorDiv, formatYear, isoWeek, isoWeekday, NS_PER_SECOND, pad } from './civil.ts'
import {
  breakdown,
  DAY_NAMES,
  type DayName,
  formatIsoUtc,
  formatRfc2822,
  formatRfc3339Local,
} from './format.ts'
import { type InputFormat, parseInstant } from './parse.ts'
import { relativeText } from './relative.ts'
import type { Unit } from './unix.ts'
import { formatOffset, offsetSecondsAtNs, resolveTimeZone } from './zone.ts'

export interface TimestampInput {
  value?: string | number
  unit?: Unit | 'auto'
  timezone?: string
  at?: string | number
}

export interface TimestampResult {
  unix: { s: string; ms: string; us: string; ns: string }
  iso8601: string
  rfc2822: string | null
  rfc3339_local: string
  timezone: string
  utc_offset: string
  utc_offset_seconds: number
  relative: string
  day_of_week: DayName
  iso_day_of_week: number
  day_of_year: number
  iso_week: string
  detected_unit: Unit | null
  input_format: InputFormat
  warnings: string[]
}

// One instant, every common representation. `nowMs` is the clock for "now" and a missing `at`.
export function timestamp(input: TimestampInput, nowMs: number = Date.now()): TimestampResult {
  const zone = input.timezone ?? 'UTC'
  const timezone = resolveTimeZone(zone)
  const nowNs = BigInt(Math.trunc(nowMs)) * 1_000_000n
  const parsed = parseInstant(input.value, input.unit ?? 'auto', zone, nowNs, 'value')
  const reference = input.at === undefined ? null : parseInstant(input.at, 'auto', zone, nowNs, 'at')
  const ns = parsed.ns
  const offset = offsetSecondsAtNs(zone, ns)
  const local = breakdown(ns + BigInt(offset) * NS_PER_SECOND).days
  const week = isoWeek(local)
  const weekday = isoWeekday(local)
  return {
    unix: {
      s: floorDiv(ns, NS_PER_SECOND).toString(),
      ms: floorDiv(ns, 1_000_000n).toString(),
      us: floorDiv(ns, 1000n).toString(),
      ns: ns.toString(),
    },
    iso8601: formatIsoUtc(ns),
    rfc2822: formatRfc2822(ns, offset),
    rfc3339_local: formatRfc3339Local(ns, offset),
    timezone,
    utc_offset: formatOffset(offset),
    utc_offset_seconds: offset,
    relative: relativeText(ns, reference?.ns ?? nowNs),
    day_of_week: DAY_NAMES[weekday - 1]!,
    iso_day_of_week: weekday,
    day_of_year: dayOfYear(local),
    iso_week: `${formatYear(week.year)}-W${pad(week.week, 2)}`,
    detected_unit: parsed.unit,
    input_format: parsed.format,
    warnings: [...parsed.warnings, ...(reference?.warnings ?? [])],
  }
}
