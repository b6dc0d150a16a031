import { unrepresentable } from '../model/errors.ts'
import { Output } from '../model/output.ts'
import {
  DataDate,
  type DataMap,
  DataNumber,
  type DataValue,
  isInteger,
  numberText,
  SpecialFloat,
} from '../model/value.ts'

// The value model to TOML 1.0. The root must be a table; TOML has no null; its integers are 64-bit ("if an
// integer cannot be represented losslessly, an error must be thrown") and its floats binary64, so an
// integer outside 64 bits and a float a double would turn into an infinity or zero are refused rather
// than changed. A float is written as its exact text: a reader that holds binary64 rounds
// 0.10000000000000001 as it reads it, as TOML allows.
//
// Key order is kept: in each table, the members up to the last one that is a plain value are written in
// place (a table among them as dotted keys, `a.b = 1`; an array of tables as an inline array), and only
// the tables and arrays of tables after it as [sections] and [[sections]], which a reader puts after
// the plain values.

const BARE_KEY = /^[A-Za-z0-9_-]+$/
const PLAIN_STRING = /^[^"\\\u0000-\u001f\u007f]*$/
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

const ESCAPES: Record<string, string> = {
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\f': '\\f',
  '\r': '\\r',
  '"': '\\"',
  '\\': '\\\\',
}

function escaped(char: string): string {
  return ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`
}

type Path = (string | number)[]

function basicString(text: string, path: Path): string {
  if (!text.isWellFormed()) throw unrepresentable('toml', path, 'lone_surrogate', 'a lone surrogate')
  if (PLAIN_STRING.test(text)) return `"${text}"`
  return `"${text.replace(/["\\\u0000-\u001f\u007f]/g, escaped)}"`
}

function keyText(key: string, path: Path): string {
  return BARE_KEY.test(key) ? key : basicString(key, path)
}

function numberValue(value: number | DataNumber, path: Path): string {
  const text = numberText(value)
  if (isInteger(value)) {
    if (text.length > 18) {
      const big = BigInt(text)
      if (big < INT64_MIN || big > INT64_MAX) {
        throw unrepresentable('toml', path, 'integer_range', `the integer ${text} (TOML integers are 64-bit)`)
      }
    }
    return text
  }
  const double = Number(text)
  if (!Number.isFinite(double) || (double === 0 && /[1-9]/.test(text.replace(/[eE].*$/, '')))) {
    throw unrepresentable('toml', path, 'float_range', `the float ${text} (TOML floats are binary64)`)
  }
  // a float's text holds a dot or an exponent, or TOML reads an integer
  return /[.eE]/.test(text) ? text : `${text}.0`
}

type Kind = 'value' | 'table' | 'tables'

function kindOf(value: DataValue): Kind {
  if (value instanceof Map) return 'table'
  if (Array.isArray(value) && value.length > 0 && value.every((item) => item instanceof Map)) return 'tables'
  return 'value'
}

export function writeToml(root: DataValue, maxBytes: number): string {
  if (!(root instanceof Map))
    throw unrepresentable('toml', [], 'root', 'a document whose root is not a table')
  const out = new Output(maxBytes)
  const path: Path = []

  const inline = (value: DataValue): string => {
    if (value === null) throw unrepresentable('toml', path, 'null', 'null')
    if (typeof value === 'string') return basicString(value, path)
    if (typeof value === 'boolean') return value ? 'true' : 'false'
    if (typeof value === 'number' || value instanceof DataNumber) return numberValue(value, path)
    if (value instanceof SpecialFloat || value instanceof DataDate) return value.text
    if (Array.isArray(value)) {
      const items: string[] = []
      for (let i = 0; i < value.length; i++) {
        path.push(i)
        items.push(inline(value[i]!))
        path.pop()
      }
      return `[${items.join(', ')}]`
    }
    if (value.size === 0) return '{}'
    const members: string[] = []
    for (const [key, item] of value) {
      path.push(key)
      members.push(`${keyText(key, path)} = ${inline(item)}`)
      path.pop()
    }
    return `{ ${members.join(', ')} }`
  }

  // a table written in place, as dotted keys under `prefix`
  const dotted = (prefix: string, table: DataMap): void => {
    for (const [key, item] of table) {
      path.push(key)
      const name = `${prefix}.${keyText(key, path)}`
      if (item instanceof Map && item.size > 0) dotted(name, item)
      else out.write(`${name} = ${inline(item)}\n`)
      path.pop()
    }
  }

  const section = (table: DataMap, header: string): void => {
    let last = -1
    let i = 0
    for (const item of table.values()) {
      if (kindOf(item) === 'value') last = i
      i++
    }
    i = 0
    for (const [key, item] of table) {
      path.push(key)
      const name = keyText(key, path)
      const kind = kindOf(item)
      if (i <= last) {
        if (kind === 'table' && (item as DataMap).size > 0) dotted(name, item as DataMap)
        else out.write(`${name} = ${inline(item)}\n`)
      } else {
        const full = header === '' ? name : `${header}.${name}`
        if (kind === 'table') {
          // a table of tables alone needs no header: its sub-tables' headers create it
          const sub = item as DataMap
          if (sub.size === 0 || [...sub.values()].some((member) => kindOf(member) === 'value')) {
            out.write(`\n[${full}]\n`)
          }
          section(sub, full)
        } else {
          const tables = item as DataMap[]
          for (let k = 0; k < tables.length; k++) {
            path.push(k)
            out.write(`\n[[${full}]]\n`)
            section(tables[k]!, full)
            path.pop()
          }
        }
      }
      path.pop()
      i++
    }
  }

  section(root, '')
  return out.text.startsWith('\n') ? out.text.slice(1) : out.text
}
