import { parseExactly, placeExactNumbers } from './exact-numbers.ts'
import { noteMemberShapes } from './shape.ts'

// Lossless JSON numbers for the documents of json/diff and json/patch.
//
// A number whose text is exactly what JSON.stringify writes for its double (42, 1.5, 1e+21) is kept
// as a plain number. Any other (12345678901234567890, 1.0, -0, 1e400, 0.10000000000000001) is kept
// as JSON.rawJSON(text): a frozen null-prototype object that JSON.stringify writes back as that text,
// byte for byte. Numbers are equal when their decimal values are (RFC 8259 leaves this to the
// implementation; jsondiffpatch and RFC 6902's "test" compare values): 1 == 1.0 == 1e0 == 10e-1,
// -0 == 0, but 12345678901234567890 != 12345678901234567891 and 0.1 != 0.10000000000000001.

export interface RawNumber {
  readonly rawJSON: string
}

// Only parseJsonExact makes raw JSON values, and only for numbers.
export const isRawNumber = (JSON as unknown as { isRawJSON(v: unknown): v is RawNumber }).isRawJSON

// JSON.parse, except that numbers keep their exact text (see above). Throws as JSON.parse does.
// A plain parse, then one pass over the text puts the exact numbers in (exact-numbers.ts): about a third of
// the parse's time. A text that pass cannot follow (a duplicate key above a number to keep) is parsed
// again, token by token. Both are iterative: any depth parses (json/diff and json/patch then refuse more
// than 512 and 1000 levels with ERR_VALIDATION).
//
// With `shapes`, what the pass saw on the way is noted beside the body's members (shape.ts), for json/diff.
// Without, a text in which no number can need its text kept (MAY_NEED_TEXT finds none) is JSON.parse's
// value as it is, and the pass is skipped: one native scan costs 40% of the pass (a 4.3 MB json/validate
// batch: 6 ms instead of 14; a 10 MB json/query document: 12 instead of 28).
export function parseJsonExact(text: string, shapes = true): unknown {
  if (!shapes && !MAY_NEED_TEXT.test(text) && !ROOT_NUMBER.test(text)) return JSON.parse(text)
  const placed = placeExactNumbers(text, JSON.parse(text))
  if (placed === undefined) return parseExactly(text)
  if (shapes) noteMemberShapes(placed.value, placed.deepest, placed.prototypeKeys)
  return placed.value
}

// Every number token placeExactNumbers does not skip at once, and some text in strings besides: a value in
// a container follows "[", "," or ":" and JSON whitespace, and a number the pass reads further has an
// exponent, a fraction ending in 0 ("1.50"), a "0.000000" start, 16 or more digits ("[0-9.]" 16 times at
// least), or is "-0". A match only means the pass runs.
const MAY_NEED_TEXT =
  /[:,[]\s*(?:-0(?![.0-9])|-?0\.000000|-?[0-9]+(?:\.[0-9]+)?[eE]|-?[0-9]+\.[0-9]*0(?![0-9])|-?[0-9][0-9.]{15})/
// a text that is one number (no container before it)
const ROOT_NUMBER = /^\s*[-0-9]/

// Raw numbers back to doubles (iterative), for bodies whose numbers are not documents.
export function plainNumbers(root: unknown): unknown {
  if (isRawNumber(root)) return Number(root.rawJSON)
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const node = stack.pop()
    if (typeof node !== 'object' || node === null) continue
    const holder = node as Record<string, unknown>
    for (const key of Object.keys(holder)) {
      const item = holder[key]
      if (isRawNumber(item)) holder[key] = Number(item.rawJSON)
      else if (typeof item === 'object' && item !== null) stack.push(item)
    }
  }
  return root
}

// The decimal value of a JSON number's text, canonical: "0", or [-]digits "e" exponent with no
// leading or trailing zeros in the digits (1.50e1 → "15e0"; 0.1 → "1e-1").
export function decimalKey(text: string): string {
  const negative = text.charCodeAt(0) === 45
  const e = text.search(/[eE]/)
  const mantissa = text.slice(negative ? 1 : 0, e < 0 ? text.length : e)
  const dot = mantissa.indexOf('.')
  const digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1)
  const fraction = dot < 0 ? 0 : mantissa.length - dot - 1
  let first = 0
  while (first < digits.length && digits.charCodeAt(first) === 48) first++
  if (first === digits.length) return '0'
  let last = digits.length
  while (digits.charCodeAt(last - 1) === 48) last--
  const shift = digits.length - last - fraction
  const written = e < 0 ? '0' : text.slice(e + 1)
  // exponents of up to 15 digits add exactly as doubles; longer ones (1e99999999999999999) as BigInt
  const exponent =
    written.replace(/^[+-]/, '').length <= 15
      ? String(Number(written) + shift)
      : String(BigInt(written.replace(/^\+/, '')) + BigInt(shift))
  return `${negative ? '-' : ''}${digits.slice(first, last)}e${exponent}`
}

export function isJsonNumber(value: unknown): value is number | RawNumber {
  return typeof value === 'number' || isRawNumber(value)
}

function numberText(value: number | RawNumber): string {
  return typeof value === 'number' ? String(value) : value.rawJSON
}

// Equal decimal values. Plain numbers are written as their doubles, so for two of them this is ===.
export function numbersEqual(a: number | RawNumber, b: number | RawNumber): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b
  return decimalKey(numberText(a)) === decimalKey(numberText(b))
}

// A raw number whose value a double holds exactly as written (1.0, -0, 1e2) — the double, which
// compares and hashes like it; undefined for one no double holds (12345678901234567890, 1e400).
export function exactDouble(value: RawNumber): number | undefined {
  const n = Number(value.rawJSON)
  return Number.isFinite(n) && decimalKey(String(n)) === decimalKey(value.rawJSON) ? n : undefined
}
