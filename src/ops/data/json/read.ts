import { isAppError } from '../../../errors.ts'
import { jsonParseErrorOffset } from '../../../lib/json-error.ts'
import { formatJson } from '../../json/format/format.ts'
import { duplicateKey, invalidInput, tooDeep } from '../model/errors.ts'
import { type DataMap, type DataValue, numberFromJsonText } from '../model/value.ts'

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_OBJECT = 0x7b
const OPEN_ARRAY = 0x5b
const CLOSE_OBJECT = 0x7d
const CLOSE_ARRAY = 0x5d
const COMMA = 0x2c
const MINUS = 0x2d
const DOT = 0x2e
const PLUS = 0x2b
const LOWER_E = 0x65
const UPPER_E = 0x45
const LOWER_T = 0x74
const LOWER_F = 0x66
const LOWER_N = 0x6e

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39
}

// The error json/format gives for this text (its tokenizer names the problem exactly); where JSON.parse
// stopped, should the two ever disagree.
function invalidJson(text: string, parseError: unknown): Error {
  try {
    formatJson({ input: text, mode: 'minify' })
  } catch (err) {
    if (isAppError(err)) return err
  }
  return invalidInput('json', text, jsonParseErrorOffset(parseError, text), 'not valid JSON')
}

// JSON text (RFC 8259) to the value model: JSON.parse validates it, then one pass over the text builds the
// value, so that numbers keep their text (number.ts's rule: a plain double when it prints back as
// written), keys keep their order (integer-like ones included) and a key twice in one object is refused
// (ERR_DUPLICATE_KEY: the model holds one value per key; json/format keeps duplicates). Iterative: depth
// is bounded by `maxDepth`, not by the stack.
export function readJson(text: string, maxDepth: number): DataValue {
  try {
    JSON.parse(text)
  } catch (err) {
    throw invalidJson(text, err)
  }
  const open: (DataValue[] | DataMap)[] = []
  const keys: string[] = []
  let root: DataValue = null
  let expectKey = false
  // where the innermost open container is
  const path = (): (string | number)[] => {
    const parts: (string | number)[] = []
    for (let d = 0; d < open.length - 1; d++) {
      const container = open[d]!
      parts.push(container instanceof Map ? keys[d]! : container.length - 1)
    }
    return parts
  }
  const put = (value: DataValue) => {
    const d = open.length - 1
    if (d < 0) {
      root = value
      return
    }
    const container = open[d]!
    if (Array.isArray(container)) container.push(value)
    else {
      const key = keys[d]!
      if (container.has(key)) throw duplicateKey('json', path(), key)
      container.set(key, value)
    }
  }
  const n = text.length
  let i = 0
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      let end = i + 1
      let escaped = false
      for (let ch = text.charCodeAt(end); ch !== QUOTE && end < n; ch = text.charCodeAt(++end)) {
        if (ch === BACKSLASH) {
          escaped = true
          end++
        }
      }
      const value = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end)
      if (expectKey) {
        keys[open.length - 1] = value
        expectKey = false
      } else put(value)
      i = end + 1
    } else if (c === MINUS || isDigit(c)) {
      const start = i++
      let integer = true
      for (let ch = text.charCodeAt(i); ; ch = text.charCodeAt(++i)) {
        if (ch === DOT || ch === LOWER_E || ch === UPPER_E) integer = false
        else if (!isDigit(ch) && ch !== PLUS && ch !== MINUS) break
      }
      put(numberFromJsonText(text.slice(start, i), integer))
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (open.length === maxDepth) throw tooDeep(maxDepth)
      const container: DataValue[] | DataMap = c === OPEN_OBJECT ? new Map() : []
      put(container)
      open.push(container)
      expectKey = c === OPEN_OBJECT
      i++
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      open.pop()
      expectKey = false
      i++
    } else if (c === COMMA) {
      expectKey = open[open.length - 1] instanceof Map
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
