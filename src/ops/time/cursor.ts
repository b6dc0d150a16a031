import type { AppError } from '../../errors.ts'
import { NS_PER_SECOND, SECONDS_PER_DAY } from './civil.ts'
import { invalidTimestamp, type TimestampField } from './error.ts'

// A left-to-right reader over a date string that reports failures at the exact UTF-16 position.
export interface Cursor {
  readonly text: string
  readonly field: TimestampField
  pos: number
}

export function cursor(text: string, field: TimestampField): Cursor {
  return { text, field, pos: 0 }
}

export function fail(c: Cursor, reason: string, position = c.pos): AppError {
  return invalidTimestamp(c.field, c.text, reason, position)
}

export function peek(c: Cursor, ahead = 0): string {
  return c.text[c.pos + ahead] ?? ''
}

export function atEnd(c: Cursor): boolean {
  return c.pos >= c.text.length
}

export function isDigit(ch: string): boolean {
  return ch >= '0' && ch <= '9'
}

export function eat(c: Cursor, chars: string): boolean {
  const ch = peek(c)
  if (ch !== '' && chars.includes(ch)) {
    c.pos++
    return true
  }
  return false
}

export function expect(c: Cursor, chars: string, what: string): void {
  if (!eat(c, chars)) throw fail(c, atEnd(c) ? `ended early; expected ${what}` : `expected ${what}`)
}

export function digits(c: Cursor, count: number, what: string): number {
  for (let i = 0; i < count; i++) {
    if (!isDigit(peek(c, i))) {
      const at = c.pos + i
      throw fail(c, at >= c.text.length ? `ended early; expected ${what}` : `expected a digit of ${what}`, at)
    }
  }
  const n = Number(c.text.slice(c.pos, c.pos + count))
  c.pos += count
  return n
}

export function countDigits(c: Cursor): number {
  let n = 0
  while (isDigit(peek(c, n))) n++
  return n
}

export function checkRange(c: Cursor, n: number, min: number, max: number, what: string, at: number): void {
  if (n < min || n > max) throw fail(c, `${what} ${n} is out of range (${min}–${max})`, at)
}

// Years the Date range can reach; checked early so the arithmetic below stays in safe integers.
export function checkYear(c: Cursor, year: number, at: number): void {
  checkRange(c, year, -271_822, 275_761, 'year', at)
}

// Wall-clock fields as nanoseconds since 1970-01-01T00:00 on the same wall clock. Hour 24 and second
// 60 simply carry into the next day / minute: Unix time has no leap seconds.
export function wallNs(days: number, hour: number, minute: number, second: number, nanos: number): bigint {
  const seconds = days * SECONDS_PER_DAY + hour * 3600 + minute * 60 + second
  return BigInt(seconds) * NS_PER_SECOND + BigInt(nanos)
}

// A parsed date: the wall clock, plus its UTC offset when the text carried one.
export interface ParsedDate {
  wall: bigint
  offsetSeconds: number | null
  leapSecond: boolean
}
