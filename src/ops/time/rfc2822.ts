import { daysFromCivil, daysInMonth, isoWeekday } from './civil.ts'
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
  type ParsedDate,
  peek,
  wallNs,
} from './cursor.ts'
import type { TimestampField } from './error.ts'

const DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']
const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

// RFC 2822 §4.3 obsolete zones. Military letters other than Z were defined wrongly in RFC 822, so the
// RFC says to read them as -0000 (no information), which is UTC.
const NAMED_ZONES: Record<string, number> = {
  UT: 0,
  GMT: 0,
  EST: -5,
  EDT: -4,
  CST: -6,
  CDT: -5,
  MST: -7,
  MDT: -6,
  PST: -8,
  PDT: -7,
}

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n'
}

// RFC 5322 §3.2.2 CFWS: white space and comments, "(" … ")", nested, with "\\x" quoting any character.
// Returns how many characters were skipped; an unclosed comment is an error at its "(".
function skipSpace(c: Cursor): number {
  const start = c.pos
  for (;;) {
    if (isSpace(peek(c))) {
      c.pos++
      continue
    }
    if (peek(c) !== '(') return c.pos - start
    const open = c.pos
    let depth = 0
    do {
      const ch = c.text[c.pos++]
      if (ch === undefined) throw fail(c, 'a comment "(" is not closed', open)
      if (ch === '\\') c.pos++
      else if (ch === '(') depth++
      else if (ch === ')') depth--
    } while (depth > 0)
  }
}

function requireSpace(c: Cursor, before: string): void {
  if (skipSpace(c) > 0) return
  throw fail(c, atEnd(c) ? `ended early; expected ${before}` : `expected white space before ${before}`)
}

function word(c: Cursor): string {
  const start = c.pos
  while (/[A-Za-z]/.test(peek(c))) c.pos++
  return c.text.slice(start, c.pos)
}

function lookup(names: string[], name: string): number {
  return names.findIndex((n) => n.toLowerCase() === name.toLowerCase())
}

// [day-name ","] day month year hh:mm[:ss] zone, case-insensitive names, 2- and 3-digit obsolete years
// (RFC 2822 §4.3: < 50 → 20xx, else 19xx; 3 digits → +1900). Comments and white space (CFWS) may stand
// wherever RFC 5322's obsolete syntax (§4.3) allows them: around every token, the colons of the time
// included, and after the zone: "Tue, 14 Nov 2023 22:13:20 +0000 (UTC)".
export function parseRfc2822(text: string, field: TimestampField): ParsedDate {
  const c = cursor(text, field)
  skipSpace(c)
  let weekdayAt = -1
  let weekday = -1
  if (/[A-Za-z]/.test(peek(c))) {
    weekdayAt = c.pos
    weekday = lookup(DAY_NAMES, word(c))
    if (weekday < 0) throw fail(c, 'expected a day name (Mon … Sun)', weekdayAt)
    skipSpace(c)
    expect(c, ',', '"," after the day name')
    skipSpace(c)
  }
  const dayAt = c.pos
  const day = digits(c, countDigits(c) === 1 ? 1 : 2, 'the day of the month')
  requireSpace(c, 'the month')
  const monthAt = c.pos
  const month = lookup(MONTH_NAMES, word(c)) + 1
  if (month === 0) throw fail(c, 'expected a month name (Jan … Dec)', monthAt)
  requireSpace(c, 'the year')
  const yearAt = c.pos
  const yearDigits = countDigits(c)
  if (yearDigits < 2) throw fail(c, 'expected a year of at least two digits')
  if (yearDigits > 6) throw fail(c, 'year has too many digits', yearAt)
  const year = obsoleteYear(digits(c, yearDigits, 'the year'), yearDigits)
  checkYear(c, year, yearAt)
  checkRange(c, day, 1, daysInMonth(year, month), 'day', dayAt)
  const days = daysFromCivil(year, month, day)
  if (weekday >= 0 && isoWeekday(days) !== weekday + 1) {
    throw fail(
      c,
      `the day name does not match the date (it was a ${DAY_NAMES[isoWeekday(days) - 1]})`,
      weekdayAt,
    )
  }
  requireSpace(c, 'the time')
  const hourAt = c.pos
  const hour = digits(c, 2, 'the hour')
  checkRange(c, hour, 0, 23, 'hour', hourAt)
  skipSpace(c)
  expect(c, ':', '":" after the hour')
  skipSpace(c)
  const minuteAt = c.pos
  const minute = digits(c, 2, 'the minute')
  checkRange(c, minute, 0, 59, 'minute', minuteAt)
  let second = 0
  let gap = skipSpace(c)
  if (eat(c, ':')) {
    skipSpace(c)
    const secondAt = c.pos
    second = digits(c, 2, 'the second')
    checkRange(c, second, 0, 60, 'second', secondAt)
    gap = skipSpace(c)
  }
  if (gap === 0) requireSpace(c, 'the zone')
  const offsetSeconds = zone(c)
  skipSpace(c)
  if (!atEnd(c)) throw fail(c, 'unexpected character after the zone')
  return { wall: wallNs(days, hour, minute, second, 0), offsetSeconds, leapSecond: second === 60 }
}

function obsoleteYear(year: number, width: number): number {
  if (width === 2) return year < 50 ? 2000 + year : 1900 + year
  if (width === 3) return 1900 + year
  return year
}

function zone(c: Cursor): number {
  const at = c.pos
  const sign = peek(c)
  if (eat(c, '+-')) {
    const hours = digits(c, 2, 'the zone hours (±hhmm)')
    checkRange(c, hours, 0, 23, 'zone hours', at + 1)
    const minutesAt = c.pos
    const minutes = digits(c, 2, 'the zone minutes (±hhmm)')
    checkRange(c, minutes, 0, 59, 'zone minutes', minutesAt)
    return (sign === '-' ? -1 : 1) * (hours * 3600 + minutes * 60)
  }
  const name = word(c).toUpperCase()
  if (Object.hasOwn(NAMED_ZONES, name)) return NAMED_ZONES[name]! * 3600
  if (/^[A-IK-Z]$/.test(name)) return 0
  throw fail(c, 'expected a zone: ±hhmm, UT, GMT, EST, EDT, CST, CDT, MST, MDT, PST or PDT', at)
}
