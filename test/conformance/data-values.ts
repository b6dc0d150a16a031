import { DataDate, DataNumber, type DataValue, SpecialFloat } from '../../src/ops/data/model/value.ts'
import { decimalKey } from '../../src/ops/json/number.ts'

// Helpers of the data/convert conformance suites: value equality as the suites define it, and toml-test's
// tagged JSON in both directions.

function numberKey(value: number | DataNumber): string {
  return decimalKey(typeof value === 'number' ? String(value) : value.text)
}

function isNumber(value: DataValue): value is number | DataNumber {
  return typeof value === 'number' || value instanceof DataNumber
}

// toml-test compares datetimes by value, to the millisecond ("further precision is implementation-specific").
function dateKey(text: string): string {
  return text.replace(
    /(\d\d:\d\d:\d\d)(?:\.(\d+))?/,
    (_, time: string, fraction = '') => `${time}.${(fraction + '000').slice(0, 3)}`,
  )
}

// Equal values: numbers by exact decimal value, mappings without regard to key order (the suites'
// expectations do not keep it: yaml-test-suite RR7F), numbers' kinds (integer or float) only when `kinds`.
export function sameValue(a: DataValue, b: DataValue, kinds = false): boolean {
  if (isNumber(a) || isNumber(b)) {
    if (!isNumber(a) || !isNumber(b) || numberKey(a) !== numberKey(b)) return false
    if (!kinds) return true
    const integer = (v: number | DataNumber) => (typeof v === 'number' ? !/[.e]/.test(String(v)) : v.integer)
    return integer(a) === integer(b)
  }
  if (a instanceof SpecialFloat || b instanceof SpecialFloat) {
    return a instanceof SpecialFloat && b instanceof SpecialFloat && a.text === b.text
  }
  if (a instanceof DataDate || b instanceof DataDate) {
    return (
      a instanceof DataDate &&
      b instanceof DataDate &&
      a.kind === b.kind &&
      dateKey(a.text) === dateKey(b.text)
    )
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((x, i) => sameValue(x, b[i]!, kinds))
    )
  }
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map) || !(b instanceof Map) || a.size !== b.size) return false
    for (const [key, value] of a) if (!b.has(key) || !sameValue(value, b.get(key)!, kinds)) return false
    return true
  }
  return a === b
}

type Tagged = { type: string; value: string } | Tagged[] | { [key: string]: Tagged }

function isTag(value: object): value is { type: string; value: string } {
  const keys = Object.keys(value)
  return (
    keys.length === 2 &&
    typeof (value as { type?: unknown }).type === 'string' &&
    typeof (value as { value?: unknown }).value === 'string'
  )
}

// toml-test's tagged JSON ({"type": "integer", "value": "42"}, README "JSON encoding") to the value model.
export function fromTagged(tagged: Tagged): DataValue {
  if (Array.isArray(tagged)) return tagged.map(fromTagged)
  if (isTag(tagged)) {
    const { type, value } = tagged
    if (type === 'string') return value
    if (type === 'bool') return value === 'true'
    if (type === 'integer') return new DataNumber(BigInt(value).toString(), true)
    if (type === 'float') {
      if (/^[+-]?(inf|nan)$/.test(value))
        return new SpecialFloat(value.includes('nan') ? 'nan' : value.startsWith('-') ? '-inf' : 'inf')
      return new DataNumber(value.replace(/^\+/, ''), false)
    }
    return new DataDate(type as DataDate['kind'], value)
  }
  return new Map(Object.entries(tagged).map(([key, item]) => [key, fromTagged(item)]))
}

// The top-level JSON texts of a file that holds several (yaml-test-suite's in.json of a stream).
export function jsonTexts(text: string): string[] {
  const out: string[] = []
  let depth = 0
  let inString = false
  let start = -1
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') {
        inString = false
        if (depth === 0) {
          out.push(text.slice(start, i + 1))
          start = -1
        }
      }
    } else if (c === '"') {
      inString = true
      if (depth === 0) start = i
    } else if (c === '[' || c === '{') {
      if (depth++ === 0) start = i
    } else if (c === ']' || c === '}') {
      if (--depth === 0) {
        out.push(text.slice(start, i + 1))
        start = -1
      }
    } else if (depth === 0 && /\s/.test(c)) {
      if (start >= 0) out.push(text.slice(start, i))
      start = -1
    } else if (depth === 0 && start < 0) start = i
  }
  if (start >= 0) out.push(text.slice(start))
  return out
}
