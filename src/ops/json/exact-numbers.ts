// Exact numbers put into a document JSON.parse has already parsed: the fast half of parseJsonExact
// (number.ts). It replaced JSON.parse with a reviver reading each value's source text, which cost 6-8× a
// plain parse (a 19 MiB json/diff body: 1.2-3 s instead of 150-280 ms, most of a 100k-item diff request:
// V8 calls back into JS and snapshots the source of every value), and which V8 (Node 24.21) sometimes
// gets wrong: in some documents holding a non-ASCII string it hands the reviver no source for a number.
// Here the plain parse builds the value, and one pass over the text finds the number tokens whose text
// is not what JSON.stringify writes for their double and puts JSON.rawJSON(text) at their place.
//
// The pass reads the text as the JSON.parse that succeeded on it did (it is valid JSON, so the pass
// validates nothing): strings are skipped, and only the containers on the way to a number that needs
// replacing are looked up in the value (each open container's value found once). Where the value and
// the text part ways (an object with a duplicate key: JSON.parse kept the last member) the pass gives up
// and parseExactly, below, builds the value from the tokens instead.

import { namesPrototypeMember } from './shape.ts'

// `JSON.rawJSON` (ES2026), not yet in TypeScript's lib
const { rawJSON, isRawJSON } = JSON as unknown as {
  rawJSON(text: string): unknown
  isRawJSON(value: unknown): boolean
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const COMMA = 0x2c
const PLUS = 0x2b
const MINUS = 0x2d
const DOT = 0x2e
const ZERO = 0x30
const NINE = 0x39
const LOWER_E = 0x65
const UPPER_E = 0x45
const LOWER_T = 0x74
const LOWER_F = 0x66
const LOWER_N = 0x6e

type Container = Record<string, unknown> | unknown[]

// The text of the key token text[start, end) (quotes included) as JSON.parse reads it.
function keyText(text: string, start: number, end: number): string {
  const inner = text.slice(start + 1, end - 1)
  return inner.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : inner
}

// An array (isObject false) or an object (true) that JSON.parse made, not a number put in its place.
function isContainer(value: unknown, isObject: boolean): value is Container {
  return typeof value === 'object' && value !== null && Array.isArray(value) !== isObject && !isRawJSON(value)
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE
}

export interface Placed {
  value: unknown
  // what the pass saw on the way (shape.ts): the deepest container's depth (the root's is 0, -1 when the
  // text has none), and whether a key may name an Object.prototype member
  deepest: number
  prototypeKeys: boolean
}

// `root` (what JSON.parse(text) returned) with every number whose text is not its double's JSON.stringify
// text replaced by JSON.rawJSON(text); undefined when the text has a duplicate key above such a number.
// The root itself is replaced when it is such a number.
export function placeExactNumbers(text: string, root: unknown): Placed | undefined {
  // The open containers, innermost at `depth`: whether each is an object; for an array the index of the
  // current item, for an object the members seen so far and the current member's key token (quotes
  // included); and the container's value in `root`, once a number below it needed it.
  let depth = -1
  const isObject: boolean[] = []
  const count: number[] = []
  const keyStart: number[] = []
  const keyEnd: number[] = []
  const values: (Container | undefined)[] = []

  // The value of the container open at depth d, looked up from the nearest one already known; undefined
  // when the document is not what the text says there (a duplicate key kept another member).
  const containerAt = (d: number): Container | undefined => {
    let k = d
    while (k >= 0 && values[k] === undefined) k--
    if (k < 0) {
      if (!isContainer(root, isObject[0]!)) return undefined
      values[0] = root
      k = 0
    }
    for (k++; k <= d; k++) {
      const parent = values[k - 1]!
      const found = isObject[k - 1]
        ? (parent as Record<string, unknown>)[keyText(text, keyStart[k - 1]!, keyEnd[k - 1]!)]
        : (parent as unknown[])[count[k - 1]!]
      if (!isContainer(found, isObject[k]!)) return undefined
      values[k] = found
    }
    return values[d]
  }

  const n = text.length
  let deepest = -1
  let prototypeKeys = false
  let expectKey = false
  let i = 0
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      // most strings are short: a loop here is cheaper than a call to indexOf for each
      let end = i + 1
      let escaped = false
      for (let ch = text.charCodeAt(end); ch !== QUOTE && end < n; ch = text.charCodeAt(++end)) {
        if (ch === BACKSLASH) {
          escaped = true
          end++
        }
      }
      if (expectKey) {
        keyStart[depth] = i
        keyEnd[depth] = end + 1
        count[depth]!++
        expectKey = false
        if (!prototypeKeys && (escaped || namesPrototypeMember(text, i + 1, end))) prototypeKeys = true
      }
      i = end + 1
    } else if (c === MINUS || isDigit(c)) {
      const start = i
      if (c === MINUS) i++
      const intStart = i
      while (isDigit(text.charCodeAt(i))) i++
      const intDigits = i - intStart
      let fracDigits = 0
      let plain = true
      if (text.charCodeAt(i) === DOT) {
        const fracStart = ++i
        while (isDigit(text.charCodeAt(i))) i++
        fracDigits = i - fracStart
        // "1.50" is written "1.5", "0.0000001" "1e-7"
        if (text.charCodeAt(i - 1) === ZERO) plain = false
        else if (
          intDigits === 1 &&
          text.charCodeAt(intStart) === ZERO &&
          text.startsWith('000000', fracStart)
        )
          plain = false
      }
      const e = text.charCodeAt(i)
      if (e === LOWER_E || e === UPPER_E) {
        plain = false
        i++
        const sign = text.charCodeAt(i)
        if (sign === MINUS || sign === PLUS) i++
        while (isDigit(text.charCodeAt(i))) i++
      }
      // Up to 15 digits without exponent or trailing fraction zero: a double holds the decimal and prints
      // it back digit for digit (DBL_DIG is 15). But "-0" is written "0".
      const negativeZero = c === MINUS && fracDigits === 0 && text.charCodeAt(intStart) === ZERO
      if (plain && intDigits + fracDigits <= 15 && !negativeZero) continue
      const token = text.slice(start, i)
      if (String(Number(token)) === token) continue
      const exact = rawJSON(token)
      if (depth < 0) return { value: exact, deepest, prototypeKeys }
      const holder = containerAt(depth) as Record<string, unknown> | undefined
      const at = isObject[depth] ? keyText(text, keyStart[depth]!, keyEnd[depth]!) : count[depth]!
      // the number JSON.parse put there, or a duplicate key kept another member
      if (holder === undefined || holder[at] !== Number(token)) return undefined
      holder[at] = exact
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > deepest) deepest = depth
      isObject[depth] = c === OPEN_OBJECT
      count[depth] = 0
      values[depth] = undefined
      expectKey = c === OPEN_OBJECT
      i++
    } else if (c === COMMA) {
      if (isObject[depth]) expectKey = true
      else count[depth]!++
      i++
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      const value = values[depth]
      // a duplicate key: JSON.parse kept the last member, which the scan may not have been looking at
      if (value !== undefined && c === CLOSE_OBJECT && Object.keys(value).length !== count[depth])
        return undefined
      values[depth] = undefined
      depth--
      expectKey = false
      i++
    } else if (c === LOWER_T || c === LOWER_N) i += 4
    else if (c === LOWER_F) i += 5
    else i++ // whitespace, ":"
  }
  return { value: root, deepest, prototypeKeys }
}

// The exact parse when placeExactNumbers cannot follow JSON.parse (a duplicate key): the value built from
// the text in one pass, as JSON.parse builds it (the last of duplicate members wins, at the first one's
// place; "__proto__" is an own member) but with exact numbers. Iterative, so any depth; 3-4× a plain
// JSON.parse, and only for texts JSON.parse has accepted (it validates nothing).
export function parseExactly(text: string): unknown {
  const open: Container[] = []
  const keys: string[] = []
  let root: unknown
  let expectKey = false
  const put = (value: unknown) => {
    const d = open.length - 1
    if (d < 0) root = value
    else if (Array.isArray(open[d])) open[d].push(value)
    else {
      const key = keys[d]!
      // assignment would set the prototype; JSON.parse defines a member
      if (key === '__proto__') {
        Object.defineProperty(open[d], key, { value, writable: true, enumerable: true, configurable: true })
      } else (open[d] as Record<string, unknown>)[key] = value
    }
  }
  const n = text.length
  let i = 0
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      let end = i + 1
      let escapes = false
      for (let ch = text.charCodeAt(end); ch !== QUOTE && end < n; ch = text.charCodeAt(++end)) {
        if (ch === BACKSLASH) {
          escapes = true
          end++
        }
      }
      const value = escapes ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end)
      if (expectKey) {
        keys[open.length - 1] = value
        expectKey = false
      } else put(value)
      i = end + 1
    } else if (c === MINUS || isDigit(c)) {
      const start = i++
      for (
        let ch = text.charCodeAt(i);
        isDigit(ch) || ch === DOT || ch === LOWER_E || ch === UPPER_E || ch === PLUS || ch === MINUS;
        ch = text.charCodeAt(++i)
      ) {}
      const token = text.slice(start, i)
      const double = Number(token)
      put(String(double) === token ? double : rawJSON(token))
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      const container: Container = c === OPEN_OBJECT ? {} : []
      put(container)
      open.push(container)
      expectKey = c === OPEN_OBJECT
      i++
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      open.pop()
      expectKey = false
      i++
    } else if (c === COMMA) {
      expectKey = !Array.isArray(open[open.length - 1])
      i++
    } else if (c === LOWER_T) {
      put(true)
      i += 4
    } else if (c === LOWER_F) {
      put(false)
      i += 5
    } else if (c === LOWER_N) {
      put(null)
      i += 4
    } else i++ // whitespace, ":"
  }
  return root
}
