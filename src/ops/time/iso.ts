import { daysFromCivil, daysFromIsoWeek, daysInMonth, isLeapYear, weeksInIsoYear } from './civil.ts'
import {
  atEnd,
  type Cursor,
  checkRange,
  checkYear,
  countDigits,
  cursor,
  digits,
  eat,
  expect,
  fail,
  isDigit,
  type ParsedDate,
  peek,
  wallNs,
} from './cursor.ts'
import type { TimestampField } from './error.ts'

// ISO 8601 (which includes RFC 3339):
//   dates     YYYY-MM-DD, YYYY-MM, YYYY-DDD (ordinal), YYYY-Www[-D] (week), ±YYYYYY-… (expanded year)
//   times     [Tt ]hh:mm[:ss[(.|,)fraction]] with optional Z | ±hh[:mm] | ±hhmm
//   basic     YYYYMMDDThhmm[ss[.fraction]][Z|±hh[mm]] (as in iCalendar and X-Amz-Date)
// A date with no time is the start of that day. Fractions finer than 1 ns are floored.
export function parseIso(text: string, field: TimestampField): ParsedDate {
  const c = cursor(text, field)
  const year = readYear(c)
  if (isDigit(peek(c)) && text[0] !== '+' && text[0] !== '-') return basicForm(c, year)
  expect(c, '-', '"-" after the year')
  const days = eat(c, 'W') ? weekDate(c, year) : calendarOrOrdinal(c, year)
  if (atEnd(c)) return { wall: wallNs(days, 0, 0, 0, 0), offsetSeconds: null, leapSecond: false }
  expect(c, 'Tt ', '"T" between the date and the time')
  return time(c, days, true)
}

function readYear(c: Cursor): number {
  const sign = peek(c)
  let year: number
  if (sign === '+' || sign === '-') {
    c.pos++
    year = digits(c, 6, 'the six-digit expanded year')
    if (sign === '-' && year === 0) throw fail(c, '-000000 is not a valid year', 0)
    if (sign === '-') year = -year
  } else {
    year = digits(c, 4, 'the year')
  }
  checkYear(c, year, 0)
  return year
}

function weekDate(c: Cursor, year: number): number {
  const weekAt = c.pos
  const week = digits(c, 2, 'the week number')
  checkRange(c, week, 1, weeksInIsoYear(year), 'week', weekAt)
  let weekday = 1
  if (eat(c, '-')) {
    const at = c.pos
    weekday = digits(c, 1, 'the weekday')
    checkRange(c, weekday, 1, 7, 'weekday', at)
  }
  return daysFromIsoWeek(year, week, weekday)
}

// A year-month date (YYYY-MM, no time allowed) is the first day of that month.
function calendarOrOrdinal(c: Cursor, year: number): number {
  const at = c.pos
  if (countDigits(c) === 3) {
    const ordinal = digits(c, 3, 'the day of the year')
    checkRange(c, ordinal, 1, isLeapYear(year) ? 366 : 365, 'day of year', at)
    return daysFromCivil(year, 1, 1) + ordinal - 1
  }
  const month = digits(c, 2, 'the month')
  checkRange(c, month, 1, 12, 'month', at)
  if (atEnd(c)) return daysFromCivil(year, month, 1)
  expect(c, '-', '"-" before the day')
  return dayOfMonth(c, year, month)
}

function dayOfMonth(c: Cursor, year: number, month: number): number {
  const at = c.pos
  const day = digits(c, 2, 'the day')
  checkRange(c, day, 1, daysInMonth(year, month), 'day', at)
  return daysFromCivil(year, month, day)
}

function basicForm(c: Cursor, year: number): ParsedDate {
  const at = c.pos
  const month = digits(c, 2, 'the month')
  checkRange(c, month, 1, 12, 'month', at)
  const days = dayOfMonth(c, year, month)
  expect(c, 'Tt', '"T" before the time (basic format)')
  return time(c, days, false)
}

function time(c: Cursor, days: number, extended: boolean): ParsedDate {
  const hourAt = c.pos
  const hour = digits(c, 2, 'the hour')
  checkRange(c, hour, 0, 24, 'hour', hourAt)
  if (extended) expect(c, ':', '":" after the hour')
  const minuteAt = c.pos
  const minute = digits(c, 2, 'the minute')
  checkRange(c, minute, 0, 59, 'minute', minuteAt)
  let second = 0
  let nanos = 0
  if (extended ? eat(c, ':') : isDigit(peek(c))) {
    const secondAt = c.pos
    second = digits(c, 2, 'the second')
    checkRange(c, second, 0, 60, 'second', secondAt)
    if (eat(c, '.,')) nanos = fraction(c)
  }
  if (hour === 24 && (minute !== 0 || second !== 0 || nanos !== 0)) {
    throw fail(c, 'hour 24 is only allowed as 24:00:00 (the end of the day)', hourAt)
  }
  const offsetSeconds = offset(c)
  if (!atEnd(c)) throw fail(c, 'unexpected character after the time')
  return { wall: wallNs(days, hour, minute, second, nanos), offsetSeconds, leapSecond: second === 60 }
}

function fraction(c: Cursor): number {
  const n = countDigits(c)
  if (n === 0) throw fail(c, 'expected a digit of the fraction of a second')
  const nanos = Number(c.text.slice(c.pos, c.pos + Math.min(n, 9)).padEnd(9, '0'))
  c.pos += n
  return nanos
}

function offset(c: Cursor): number | null {
  if (atEnd(c)) return null
  if (eat(c, 'Zz')) return 0
  const sign = peek(c)
  if (!eat(c, '+-')) throw fail(c, 'expected "Z", "+hh:mm", "-hh:mm" or the end')
  const hoursAt = c.pos
  const hours = digits(c, 2, 'the offset hours')
  checkRange(c, hours, 0, 23, 'offset hours', hoursAt)
  let minutes = 0
  const minutesAt = c.pos + (peek(c) === ':' ? 1 : 0)
  if (eat(c, ':') || isDigit(peek(c))) minutes = digits(c, 2, 'the offset minutes')
  checkRange(c, minutes, 0, 59, 'offset minutes', minutesAt)
  return (sign === '-' ? -1 : 1) * (hours * 3600 + minutes * 60)
}
