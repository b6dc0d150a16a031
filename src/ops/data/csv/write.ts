import { duplicateKey, unrepresentable } from '../model/errors.ts'
import { Output } from '../model/output.ts'
import { DataDate, type DataMap, DataNumber, type DataValue, SpecialFloat } from '../model/value.ts'
import { type CsvDialect, inferable } from './dialect.ts'

// The value model to CSV (RFC 4180: CRLF after every record, a field quoted when it holds the delimiter,
// the quote, CR or LF, a quote doubled inside). The root is an array of rows: objects (their keys, in
// the order first seen, are the columns; a row without one has an empty field there) or arrays (written
// as they are). A cell holds what a JSON scalar does: a string as it is, a number as its exact text,
// true, false, a date as its RFC 3339 text, null as an empty field; an infinity or NaN is refused, as in
// JSON. A string that a reader inferring types would read as something else ("", "42", "true") is quoted,
// so CSV written here and read back with types "infer" gives the same values.
//
// A nested value in a row is refused, or with `flatten` spread over columns named by its path, keys and
// indexes joined by dots ({"a": {"b": 1}, "c": [2]} → a.b, c.0); an empty object or array there is
// refused (it would leave no column), and two paths that spell the same name are ERR_DUPLICATE_KEY.

export interface CsvWriteOptions extends CsvDialect {
  flatten: boolean
}

type Path = (string | number)[]

export function writeCsv(root: DataValue, options: CsvWriteOptions, maxBytes: number): string {
  if (!Array.isArray(root))
    throw unrepresentable('csv', [], 'root', 'a document that is not an array of rows')
  const { delimiter, quote } = options
  const needsQuotes = (text: string) =>
    text.includes(delimiter) || text.includes(quote) || text.includes('\r') || text.includes('\n')
  const quoted = (text: string) => `${quote}${text.replaceAll(quote, quote + quote)}${quote}`
  const stringField = (text: string) => (needsQuotes(text) || inferable(text) ? quoted(text) : text)

  const cell = (value: DataValue, path: Path): string => {
    if (value === null) return ''
    if (typeof value === 'string') return stringField(value)
    if (typeof value === 'boolean') return value ? 'true' : 'false'
    if (typeof value === 'number') return String(value)
    if (value instanceof DataNumber) return value.text
    if (value instanceof DataDate) return value.text
    if (value instanceof SpecialFloat) {
      throw unrepresentable('csv', path, 'non_finite', `the float ${value.text}`)
    }
    throw unrepresentable(
      'csv',
      path,
      'nested',
      'a nested object or array in a row (options.nested "flatten" spreads it over columns)',
    )
  }

  const out = new Output(maxBytes)
  if (root.length === 0) return ''
  if (root.every((row) => Array.isArray(row))) {
    for (let r = 0; r < root.length; r++) {
      const row = root[r] as DataValue[]
      out.write(`${row.map((value, f) => cell(value, [r, f])).join(delimiter)}\r\n`)
    }
    return out.text
  }
  if (!root.every((row) => row instanceof Map)) {
    throw unrepresentable('csv', [], 'mixed_rows', 'rows that are not all objects or all arrays')
  }

  const rows = (root as DataMap[]).map((row, r) => (options.flatten ? flattened(row, [r]) : row))
  const columns = new Map<string, number>()
  for (const row of rows) for (const key of row.keys()) if (!columns.has(key)) columns.set(key, columns.size)
  const names = [...columns.keys()]
  // a header's names are never typed by a reader, so only the dialect decides their quotes
  if (options.header)
    out.write(`${names.map((name) => (needsQuotes(name) ? quoted(name) : name)).join(delimiter)}\r\n`)
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!
    out.write(
      `${names.map((name) => (row.has(name) ? cell(row.get(name)!, [r, name]) : '')).join(delimiter)}\r\n`,
    )
  }
  return out.text
}

// A row with every nested value spread over dotted columns.
function flattened(row: DataMap, path: Path): DataMap {
  const flat: DataMap = new Map()
  const spread = (name: string, value: DataValue, at: Path): void => {
    if (!(value instanceof Map) && !Array.isArray(value)) {
      if (flat.has(name)) throw duplicateKey('csv', path, name)
      flat.set(name, value)
      return
    }
    const entries: [string | number, DataValue][] = value instanceof Map ? [...value] : [...value.entries()]
    if (entries.length === 0) {
      throw unrepresentable(
        'csv',
        at,
        'nested',
        'an empty object or array when flattened (it would leave no column)',
      )
    }
    for (const [key, item] of entries) spread(`${name}.${key}`, item, [...at, key])
  }
  for (const [key, value] of row) spread(key, value, [...path, key])
  return flat
}
