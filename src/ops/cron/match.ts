import { civilFromWall, MAX_WALL, MIN_WALL, wallFromCivil } from './calendar.ts'
import { CYCLE_YEARS, matchingDays } from './days.ts'
import type { CronSpec } from './parse.ts'

// Wall-clock search, zone-free: the first matching wall time at or after (or at or before) a wall time.
// It skips field by field (month → day → hour → minute → second), so the cost grows with the number of
// months looked at, never with the number of seconds in between. At most one 400-year calendar cycle is
// searched: a satisfiable expression (see assertSatisfiable) always matches within it.
const MAX_MONTHS = CYCLE_YEARS * 12 + 12

interface Time {
  hour: number
  minute: number
  second: number
}

function timeAtOrAfter(spec: CronSpec, hour: number, minute: number, second: number): Time | null {
  const { hour: hours, minute: minutes, second: seconds } = spec.fields
  for (const h of hours.values) {
    if (h < hour) continue
    if (h > hour) return { hour: h, minute: minutes.values[0]!, second: seconds.values[0]! }
    for (const m of minutes.values) {
      if (m < minute) continue
      if (m > minute) return { hour: h, minute: m, second: seconds.values[0]! }
      const s = seconds.values.find((v) => v >= second)
      if (s !== undefined) return { hour: h, minute: m, second: s }
    }
  }
  return null
}

function timeAtOrBefore(spec: CronSpec, hour: number, minute: number, second: number): Time | null {
  const hours = spec.fields.hour.values.toReversed()
  const minutes = spec.fields.minute.values.toReversed()
  const seconds = spec.fields.second.values.toReversed()
  for (const h of hours) {
    if (h > hour) continue
    if (h < hour) return { hour: h, minute: minutes[0]!, second: seconds[0]! }
    for (const m of minutes) {
      if (m > minute) continue
      if (m < minute) return { hour: h, minute: m, second: seconds[0]! }
      const s = seconds.find((v) => v <= second)
      if (s !== undefined) return { hour: h, minute: m, second: s }
    }
  }
  return null
}

export function nextWall(spec: CronSpec, from: number): number | null {
  if (from > MAX_WALL) return null
  let { year, month, day, hour, minute, second } = civilFromWall(Math.max(from, MIN_WALL))
  for (let i = 0; i < MAX_MONTHS && year <= 9999; i++) {
    if (spec.fields.month.values.includes(month)) {
      for (const d of matchingDays(spec, year, month)) {
        if (d < day) continue
        const time = d === day ? timeAtOrAfter(spec, hour, minute, second) : timeAtOrAfter(spec, 0, 0, 0)
        if (time) return wallFromCivil({ year, month, day: d, ...time })
      }
    }
    month++
    if (month > 12) {
      month = 1
      year++
    }
    day = 1
    hour = minute = second = 0
  }
  return null
}

export function prevWall(spec: CronSpec, from: number): number | null {
  if (from < MIN_WALL) return null
  let { year, month, day, hour, minute, second } = civilFromWall(Math.min(from, MAX_WALL))
  for (let i = 0; i < MAX_MONTHS && year >= 1; i++) {
    if (spec.fields.month.values.includes(month)) {
      for (const d of matchingDays(spec, year, month).toReversed()) {
        if (d > day) continue
        const time = d === day ? timeAtOrBefore(spec, hour, minute, second) : timeAtOrBefore(spec, 23, 59, 59)
        if (time) return wallFromCivil({ year, month, day: d, ...time })
      }
    }
    month--
    if (month < 1) {
      month = 12
      year--
    }
    day = 31
    hour = 23
    minute = second = 59
  }
  return null
}
