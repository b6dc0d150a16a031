import { AppError } from '../../errors.ts'
import { NS_PER_SECOND } from './civil.ts'
import type { ParsedDate } from './cursor.ts'
import { invalidTimestamp, type TimestampField } from './error.ts'
import { parseIso } from './iso.ts'
import { parseRfc2822 } from './rfc2822.ts'
import { isNumericText, MAX_NS, parseUnix, type Unit } from './unix.ts'
import { instantFromWall } from './zone.ts'

export type InputFormat = 'unix' | 'iso8601' | 'rfc2822' | 'now'

export interface ParsedInstant {
  ns: bigint
  format: InputFormat
  unit: Unit | null
  warnings: string[]
}

// RFC 2822 opens with a day name or a one- or two-digit day and white space or a comment (RFC 5322
// CFWS: a comment may also come first); ISO 8601 with a year.
const RFC2822_START = /^[ \t\r\n]*(?:[A-Za-z(]|\d{1,2}[ \t\r\n(])/

// Significant digits a double always keeps; beyond them a JSON number may not be what the client sent.
const SAFE_DIGITS = 15

function numberLostPrecision(value: number): boolean {
  if (Math.abs(value) > Number.MAX_SAFE_INTEGER) return true
  const mantissa = String(value).replace(/e.*$/i, '').replace(/[-.]/g, '').replace(/^0+/, '')
  return mantissa.length > SAFE_DIGITS
}

function fromUnix(
  text: string,
  unit: Unit | 'auto',
  field: TimestampField,
  warnings: string[],
): ParsedInstant {
  const parsed = parseUnix(text, unit, field)
  if (parsed.truncated) warnings.push(`\`${field}\`: digits finer than 1 ns were dropped (floored)`)
  return { ns: parsed.ns, format: 'unix', unit: parsed.unit, warnings }
}

function fromDate(parsed: ParsedDate, zone: string, field: TimestampField, text: string): bigint {
  const ns =
    parsed.offsetSeconds === null
      ? instantFromWall(zone, parsed.wall)
      : parsed.wall - BigInt(parsed.offsetSeconds) * NS_PER_SECOND
  if (ns > MAX_NS || ns < -MAX_NS)
    throw invalidTimestamp(field, text, 'outside the supported range (±8.64e15 ms)')
  return ns
}

// A timestamp in any accepted form → nanoseconds since the Unix epoch. Date-times without an offset
// are wall-clock times in `zone`.
export function parseInstant(
  value: string | number | undefined,
  unit: Unit | 'auto',
  zone: string,
  nowNs: bigint,
  field: TimestampField,
): ParsedInstant {
  const warnings: string[] = []
  if (value === undefined) return { ns: nowNs, format: 'now', unit: null, warnings }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalidTimestamp(field, String(value), 'not a finite number')
    if (numberLostPrecision(value)) {
      warnings.push(
        `\`${field}\`: this JSON number has more digits than a double keeps (over 2^53 or 16+ significant digits), ` +
          'so it may already differ from what was sent; send it as a string of digits for exactness',
      )
    }
    return fromUnix(String(value), unit, field, warnings)
  }
  if (isNumericText(value)) return fromUnix(value, unit, field, warnings)
  if (unit !== 'auto') {
    throw new AppError('ERR_VALIDATION', '`unit` applies only to numeric timestamps', {
      issues: [{ path: 'unit', message: `must be "auto" when \`${field}\` is a date string` }],
    })
  }
  if (/^now$/i.test(value)) return { ns: nowNs, format: 'now', unit: null, warnings }
  const rfc2822 = RFC2822_START.test(value)
  const parsed = rfc2822 ? parseRfc2822(value, field) : parseIso(value, field)
  if (parsed.leapSecond) {
    warnings.push(
      `\`${field}\`: second 60 (a leap second) was read as the next second; Unix time has no leap seconds`,
    )
  }
  return {
    ns: fromDate(parsed, zone, field, value),
    format: rfc2822 ? 'rfc2822' : 'iso8601',
    unit: null,
    warnings,
  }
}
