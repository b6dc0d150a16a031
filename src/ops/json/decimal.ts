import { decimalKey, type RawNumber } from './number.ts'

// Exact arithmetic on JSON numbers as the lossless parse gives them (number.ts): a plain double, whose text
// is what JSON.stringify writes for it, or a raw number keeping its text. Used by json/validate (minimum,
// maximum, multipleOf, integer) and json/query (comparisons), where a double's rounding would give wrong
// answers: 12345678901234567891 > 12345678901234567890, and 19.99 is a multiple of 0.01.

export type JsonNumber = number | RawNumber

interface Decimal {
  negative: boolean
  // digits without leading or trailing zeros ("" for zero)
  digits: string
  // the value is digits × 10^exponent; a BigInt only for exponents a double cannot count exactly
  exponent: number | bigint
}

function decimalOf(value: JsonNumber): Decimal {
  const key = decimalKey(typeof value === 'number' ? String(value) : value.rawJSON)
  if (key === '0') return { negative: false, digits: '', exponent: 0 }
  const negative = key.charCodeAt(0) === 45
  const e = key.indexOf('e')
  const written = key.slice(e + 1)
  const exponent = written.length <= 15 ? Number(written) : BigInt(written)
  return { negative, digits: key.slice(negative ? 1 : 0, e), exponent }
}

function compareExponents(a: number | bigint, b: number | bigint): number {
  if (typeof a === 'number' && typeof b === 'number') return Math.sign(a - b)
  const x = BigInt(a)
  const y = BigInt(b)
  return x < y ? -1 : x > y ? 1 : 0
}

function compareMagnitude(a: Decimal, b: Decimal): number {
  if (a.digits === '' || b.digits === '') return (a.digits === '' ? 0 : 1) - (b.digits === '' ? 0 : 1)
  // the place of the leading digit decides first: digits.length - 1 + exponent
  const lead = compareExponents(
    typeof a.exponent === 'bigint' ? a.exponent + BigInt(a.digits.length) : a.exponent + a.digits.length,
    typeof b.exponent === 'bigint' ? b.exponent + BigInt(b.digits.length) : b.exponent + b.digits.length,
  )
  if (lead !== 0) return lead
  const n = Math.max(a.digits.length, b.digits.length)
  // the same leading place: digit by digit, the shorter one padded with zeros
  const x = a.digits.padEnd(n, '0')
  const y = b.digits.padEnd(n, '0')
  return x < y ? -1 : x > y ? 1 : 0
}

// -1, 0 or 1 as a is below, equal to or above b, by exact decimal value.
export function compareNumbers(a: JsonNumber, b: JsonNumber): number {
  if (typeof a === 'number' && typeof b === 'number') {
    // two doubles written as JSON.stringify writes them: their order is their decimals' order
    return a < b ? -1 : a > b ? 1 : 0
  }
  const x = decimalOf(a)
  const y = decimalOf(b)
  const xNeg = x.negative && x.digits !== ''
  const yNeg = y.negative && y.digits !== ''
  if (xNeg !== yNeg) return xNeg ? -1 : 1
  const magnitude = compareMagnitude(x, y)
  return xNeg ? -magnitude : magnitude
}

// Whether the value has no fractional part (1.0 and 1e2 are integers; JSON Schema since draft 6).
export function isIntegral(value: JsonNumber): boolean {
  if (typeof value === 'number') return Number.isInteger(value)
  const d = decimalOf(value)
  return d.digits === '' || (typeof d.exponent === 'bigint' ? d.exponent >= 0n : d.exponent >= 0)
}

const POWERS = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

// A plain double as an integer over a power of ten (19.99 is 1999 over 10^2), read from its shortest
// decimal text without writing it: the first count of fraction digits f for which some integer N over
// 10^f gives the double back is that text's (a smaller f would be a shorter text). N stays under 2^53, so
// it is exact, and N / 10^f is one correctly rounded division. Returns f (N is Math.round(value × 10^f)),
// or -1 past 15 fraction digits or 2^53. No array returned: multipleOf runs it on every number checked.
function fractionDigits(value: number): number {
  if (Number.isSafeInteger(value)) return 0
  for (let f = 1; f < POWERS.length; f++) {
    const m = value * POWERS[f]!
    if (!(Math.abs(m) < 2 ** 53)) return -1
    if (Math.round(m) / POWERS[f]! === value) return f
  }
  return -1
}

// Whether the value is a multiple of n / 10^fd (a divisor as fractionDigits scales it), both taken as
// integers over the same power of ten (1999 % 1 for 19.99 and 0.01); undefined where that is not exact.
function scaledMultiple(value: number, n: number, fd: number): boolean | undefined {
  const fv = fractionDigits(value)
  if (fv < 0) return undefined
  const k = Math.max(fv, fd)
  const a = Math.round(value * POWERS[fv]!) * POWERS[k - fv]!
  const b = n * POWERS[k - fd]!
  return Number.isSafeInteger(a) && Number.isSafeInteger(b) ? a % b === 0 : undefined
}

// isMultipleOf(value, divisor) for one divisor, its scale found once (json/validate's multipleOf runs it on
// every number of a batch).
export function multipleOfTest(divisor: JsonNumber): (value: JsonNumber) => boolean {
  const fd = typeof divisor === 'number' && !Number.isSafeInteger(divisor) ? fractionDigits(divisor) : -1
  if (fd < 0) return (value) => isMultipleOf(value, divisor)
  const n = Math.round((divisor as number) * POWERS[fd]!)
  return (value) =>
    (typeof value === 'number' ? scaledMultiple(value, n, fd) : undefined) ?? decimalMultiple(value, divisor)
}

// Whether the value is an integer multiple of a positive divisor, exactly: 19.99 is a multiple of 0.01.
function isMultipleOf(value: JsonNumber, divisor: JsonNumber): boolean {
  if (typeof value === 'number' && typeof divisor === 'number') {
    if (Number.isSafeInteger(value) && Number.isSafeInteger(divisor)) return value % divisor === 0
    const fd = fractionDigits(divisor)
    const scaled = fd < 0 ? undefined : scaledMultiple(value, Math.round(divisor * POWERS[fd]!), fd)
    if (scaled !== undefined) return scaled
  }
  return decimalMultiple(value, divisor)
}

// isMultipleOf by the decimal digits, for what a double does not hold exactly.
function decimalMultiple(value: JsonNumber, divisor: JsonNumber): boolean {
  const v = decimalOf(value)
  if (v.digits === '') return true
  const d = decimalOf(divisor)
  const vDigits = BigInt(v.digits)
  const dDigits = BigInt(d.digits)
  const shift = BigInt(v.exponent) - BigInt(d.exponent)
  // value / divisor = (vDigits / dDigits) × 10^shift
  if (shift >= 0n) return (vDigits * powMod(10n, shift, dDigits)) % dDigits === 0n
  // a negative shift needs 10^-shift to divide vDigits, which has no trailing zero
  return false
}

// base^exp mod m by squaring: a shift of a billion places costs thirty steps, not a billion digits
function powMod(base: bigint, exp: bigint, m: bigint): bigint {
  if (m === 1n) return 0n
  let result = 1n
  let b = base % m
  let e = exp
  while (e > 0n) {
    if (e & 1n) result = (result * b) % m
    b = (b * b) % m
    e >>= 1n
  }
  return result
}

export function numberText(value: JsonNumber): string {
  return typeof value === 'number' ? String(value) : value.rawJSON
}
