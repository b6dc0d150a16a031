import { invalidTimestamp, type TimestampField } from './error.ts'
import type { Unit } from './types.ts'

export type { Unit }

// Powers of ten from the unit to nanoseconds.
const SHIFT: Record<Unit, number> = { s: 9, ms: 6, us: 3, ns: 0 }

// JS Date range, ±8.64e15 ms (±100,000,000 days around 1970), in nanoseconds.
export const MAX_NS = 8_640_000_000_000_000_000_000n

const NUMERIC = /^([+-]?)(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?$/

export function isNumericText(text: string): boolean {
  return NUMERIC.test(text)
}

// `auto`: |v| < 1e11 → s, < 1e14 → ms, < 1e17 → us, else ns. Each unit then covers about
// 1973-03-03 … 5138-11-16 (and the mirror range before 1970); values outside need an explicit unit.
function detectUnit(integerDigits: number): Unit {
  if (integerDigits <= 11) return 's'
  if (integerDigits <= 14) return 'ms'
  if (integerDigits <= 17) return 'us'
  return 'ns'
}

export interface UnixValue {
  ns: bigint
  unit: Unit
  // digits finer than a nanosecond were present and dropped
  truncated: boolean
}

// Exact decimal arithmetic on the digit string: "1700000000.123456789" in seconds stays exact, and a
// value in ns beyond 2^53 is never routed through a double. Sub-nanosecond digits are floored.
export function parseUnix(text: string, unit: Unit | 'auto', field: TimestampField): UnixValue {
  const m = NUMERIC.exec(text)
  if (!m) throw invalidTimestamp(field, text, 'not a number', 0)
  const negative = m[1] === '-'
  const fraction = m[3] ?? m[4] ?? ''
  const digits = ((m[2] ?? '') + fraction).replace(/^0+/, '')
  const exponent = Number(m[5] ?? '0') - fraction.length
  if (digits === '') return { ns: 0n, unit: unit === 'auto' ? 's' : unit, truncated: false }
  const used = unit === 'auto' ? detectUnit(digits.length + exponent) : unit
  const k = exponent + SHIFT[used]
  // 8.64e21 has 22 digits, so anything with more integer digits in ns is out of range
  if (digits.length + k > 22) throw invalidTimestamp(field, text, 'outside the supported range (±8.64e15 ms)')
  let magnitude: bigint
  let truncated = false
  if (k >= 0) {
    magnitude = BigInt(digits) * 10n ** BigInt(k)
  } else {
    const keep = Math.max(0, digits.length + k)
    magnitude = BigInt(digits.slice(0, keep) || '0')
    truncated = /[1-9]/.test(digits.slice(keep))
  }
  const ns = negative ? -magnitude - (truncated ? 1n : 0n) : magnitude
  if (ns > MAX_NS || ns < -MAX_NS) {
    throw invalidTimestamp(field, text, 'outside the supported range (±8.64e15 ms)')
  }
  return { ns, unit: used, truncated }
}
