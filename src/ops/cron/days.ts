import { daysInMonth, weekday } from './calendar.ts'
import { type DaySpecial, invalidCron, type ParsedField } from './fields.ts'
import type { CronSpec } from './parse.ts'

// How the two day fields combine, exactly as Vixie cron (and cronie) do it: when neither field starts with
// "*", a day runs if it matches either field ("either"); when one does (*, */2, ?), a day must match both,
// and a field that is exactly * matches every day. So "0 0 */2 * 1" runs on odd days that are Mondays
// ("both"), and "0 0 1-31/2 * 1" on odd days and on Mondays ("either").
export type DayMatching = 'every_day' | 'day_of_month' | 'day_of_week' | 'either' | 'both'

export function dayMatching(spec: CronSpec): DayMatching {
  const dom = spec.fields.day_of_month
  const dow = spec.fields.day_of_week
  if (!dom.starred && !dow.starred) return 'either'
  if (!dom.wildcard && !dow.wildcard) return 'both'
  if (!dom.wildcard) return 'day_of_month'
  if (!dow.wildcard) return 'day_of_week'
  return 'every_day'
}

// Saturday → the Friday before, Sunday → the Monday after, never leaving the month.
function nearestWeekday(year: number, month: number, day: number, last: number): number {
  const wd = weekday(year, month, day)
  if (wd === 6) return day === 1 ? 3 : day - 1
  if (wd === 0) return day === last ? day - 2 : day + 1
  return day
}

function specialDay(special: DaySpecial, year: number, month: number, last: number): number {
  switch (special.kind) {
    case 'last':
      return last - special.offset
    case 'last_weekday':
      return nearestWeekday(year, month, last, last)
    case 'nearest_weekday':
      return special.day > last ? 0 : nearestWeekday(year, month, special.day, last)
    default:
      return 0
  }
}

function weekdayMatches(field: ParsedField, wd: number, day: number, last: number): boolean {
  if (field.values.includes(wd)) return true
  return field.specials.some(
    (s) =>
      (s.kind === 'last_of_week' && s.weekday === wd && day + 7 > last) ||
      (s.kind === 'nth_of_week' && s.weekday === wd && Math.ceil(day / 7) === s.nth),
  )
}

// The days of one month that the day_of_month / day_of_week pair allows, ascending.
export function matchingDays(spec: CronSpec, year: number, month: number): number[] {
  const mode = dayMatching(spec)
  const last = daysInMonth(year, month)
  if (mode === 'every_day') return Array.from({ length: last }, (_, i) => i + 1)
  const dom = spec.fields.day_of_month
  const dow = spec.fields.day_of_week
  const domDays = new Set(dom.values)
  for (const s of dom.specials) domDays.add(specialDay(s, year, month, last))
  const first = weekday(year, month, 1)
  const days: number[] = []
  for (let day = 1; day <= last; day++) {
    const byDom = mode !== 'day_of_week' && domDays.has(day)
    const byDow = mode !== 'day_of_month' && weekdayMatches(dow, (first + day - 1) % 7, day, last)
    if (mode === 'both' ? byDom && byDow : byDom || byDow) days.push(day)
  }
  return days
}

// Which days match depends only on the year modulo 400 (the Gregorian calendar repeats every 146,097
// days, a whole number of weeks), so one 400-year cycle without a match proves that none ever comes.
export const CYCLE_YEARS = 400

export function assertSatisfiable(spec: CronSpec): void {
  for (let year = 2000; year < 2000 + CYCLE_YEARS; year++) {
    for (const month of spec.fields.month.values) {
      if (matchingDays(spec, year, month).length > 0) return
    }
  }
  throw invalidCron(
    'day_of_month',
    spec.fields.day_of_month.at,
    'never matches: no such day in the months given',
  )
}
