import { DataDate, type DataNumber, numberFromJsonText, SpecialFloat } from '../model/value.ts'

// TOML 1.0 numbers and dates (spec "Integer", "Float", "Offset Date-Time" … "Local Time") from their text,
// matched at a position of the document: the longest token that is one, or undefined. Exact: an integer
// becomes its decimal text (0xDEAD_BEEF → 3735928559), a float its text without underscores or "+"
// (which is then JSON's syntax), a date its RFC 3339 text with "T" and "Z" upper case. Ranges are
// checked by the caller's rules below: a 64-bit integer, a real calendar day.

const HEX = /0x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*/y
const OCT = /0o[0-7](?:_?[0-7])*/y
const BIN = /0b[01](?:_?[01])*/y
const DEC_INT = /[+-]?(?:0|[1-9](?:_?[0-9])*)/y
const FRACTION = /\.[0-9](?:_?[0-9])*/y
const EXPONENT = /[eE][+-]?[0-9](?:_?[0-9])*/y
const SPECIAL = /([+-]?)(inf|nan)/y
const DATE = /([0-9]{4})-([0-9]{2})-([0-9]{2})/y
const TIME = /([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?/y
const OFFSET = /[Zz]|([+-])([0-9]{2}):([0-9]{2})/y
const DATE_TIME_SEPARATOR = /[Tt ](?=[0-9]{2}:)/y

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

export interface Matched<T> {
  value: T
  end: number
}

function at(pattern: RegExp, text: string, pos: number): RegExpExecArray | null {
  pattern.lastIndex = pos
  return pattern.exec(text)
}

// 'range' when the integer is outside 64 bits (the spec: it must then be refused)
export function matchNumber(
  text: string,
  pos: number,
): Matched<number | DataNumber | SpecialFloat> | 'range' | undefined {
  const special = at(SPECIAL, text, pos)
  if (special) {
    const value =
      special[2] === 'nan' ? new SpecialFloat('nan') : new SpecialFloat(special[1] === '-' ? '-inf' : 'inf')
    return { value, end: pos + special[0].length }
  }
  const prefixed = at(HEX, text, pos) ?? at(OCT, text, pos) ?? at(BIN, text, pos)
  if (prefixed) {
    const value = BigInt(prefixed[0].replaceAll('_', ''))
    if (value > INT64_MAX) return 'range'
    return { value: numberFromJsonText(String(value), true), end: pos + prefixed[0].length }
  }
  const int = at(DEC_INT, text, pos)
  if (!int) return undefined
  let end = pos + int[0].length
  const fraction = at(FRACTION, text, end)
  if (fraction) end += fraction[0].length
  const exponent = at(EXPONENT, text, end)
  if (exponent) end += exponent[0].length
  let digits = text.slice(pos, end).replaceAll('_', '')
  if (digits.charCodeAt(0) === 0x2b) digits = digits.slice(1)
  if (fraction || exponent) return { value: numberFromJsonText(digits, false), end }
  if (digits === '-0') digits = '0'
  if (digits.length > 18) {
    const value = BigInt(digits)
    if (value < INT64_MIN || value > INT64_MAX) return 'range'
  }
  return { value: numberFromJsonText(digits, true), end }
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}

// 'invalid' when the text has a date's or time's shape but not a real one (2021-02-29, 24:00:00)
export function matchDate(text: string, pos: number): Matched<DataDate> | 'invalid' | undefined {
  const date = at(DATE, text, pos)
  if (date) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])]
    if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return 'invalid'
    let end = pos + date[0].length
    const separator = at(DATE_TIME_SEPARATOR, text, end)
    if (!separator) return { value: new DataDate('date-local', date[0]), end }
    const time = matchTime(text, end + 1)
    if (time === undefined || time === 'invalid') return 'invalid'
    end = time.end
    const offset = at(OFFSET, text, end)
    const local = `${date[0]}T${time.value.text}`
    if (!offset) return { value: new DataDate('datetime-local', local), end }
    if (offset[1] !== undefined && (Number(offset[2]) > 23 || Number(offset[3]) > 59)) return 'invalid'
    const zone = offset[1] === undefined ? 'Z' : offset[0]
    return { value: new DataDate('datetime', local + zone), end: end + offset[0].length }
  }
  return matchTime(text, pos)
}

// Seconds may be 60: RFC 3339 (which TOML follows) allows a leap second.
function matchTime(text: string, pos: number): Matched<DataDate> | 'invalid' | undefined {
  const time = at(TIME, text, pos)
  if (!time) return undefined
  if (Number(time[1]) > 23 || Number(time[2]) > 59 || Number(time[3]) > 60) return 'invalid'
  return { value: new DataDate('time-local', time[0]), end: pos + time[0].length }
}
