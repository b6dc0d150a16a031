import { duplicateKey, invalidInput } from '../model/errors.ts'
import { type DataMap, type DataValue, numberFromJsonText } from '../model/value.ts'
import { type CsvDialect, inferable } from './dialect.ts'

// CSV (RFC 4180) to the value model: with a header row, an array of objects keyed by its names (a name
// twice is ERR_DUPLICATE_KEY); without, an array of arrays. Records end at CRLF, LF or a lone CR; the
// last may end at the end of the text. Every record has the header's number of fields (the first
// record's without a header), as RFC 4180 asks; a quote inside an unquoted field, text after a closing
// quote and an unclosed quote are refused. Fields are strings; with `infer`, see dialect.ts.

export interface CsvReadOptions extends CsvDialect {
  infer: boolean
}

const CR = 0x0d
const LF = 0x0a

function typed(field: string, quoted: boolean, infer: boolean): DataValue {
  if (!infer || quoted || !inferable(field)) return field
  if (field === '') return null
  if (field === 'true' || field === 'false') return field === 'true'
  return numberFromJsonText(field, !/[.eE]/.test(field))
}

export function readCsv(text: string, options: CsvReadOptions): DataValue[] {
  const delimiter = options.delimiter.charCodeAt(0)
  const quote = options.quote.charCodeAt(0)
  const quoteChar = options.quote
  const n = text.length
  const records: DataValue[][] = []
  const recordStarts: number[] = []
  let pos = 0
  while (pos < n) {
    recordStarts.push(pos)
    const record: DataValue[] = []
    for (;;) {
      let field: string
      let quoted = false
      if (text.charCodeAt(pos) === quote) {
        quoted = true
        const start = pos
        let value = ''
        let from = pos + 1
        for (;;) {
          const close = text.indexOf(quoteChar, from)
          if (close < 0) throw invalidInput('csv', text, start, 'a quoted field is not closed')
          value += text.slice(from, close)
          if (text.charCodeAt(close + 1) === quote) {
            value += quoteChar
            from = close + 2
          } else {
            pos = close + 1
            break
          }
        }
        const next = text.charCodeAt(pos)
        if (pos < n && next !== delimiter && next !== CR && next !== LF) {
          throw invalidInput('csv', text, pos, 'text after the closing quote of a field')
        }
        field = value
      } else {
        const start = pos
        for (; pos < n; pos++) {
          const c = text.charCodeAt(pos)
          if (c === delimiter || c === CR || c === LF) break
          if (c === quote) throw invalidInput('csv', text, pos, 'a quote inside an unquoted field')
        }
        field = text.slice(start, pos)
      }
      // a header's names are never typed
      record.push(typed(field, quoted, options.infer && !(options.header && records.length === 0)))
      if (pos < n && text.charCodeAt(pos) === delimiter) {
        pos++
        continue
      }
      break
    }
    if (text.charCodeAt(pos) === CR) pos++
    if (text.charCodeAt(pos) === LF) pos++
    records.push(record)
  }
  const width = records[0]?.length ?? 0
  for (let r = 1; r < records.length; r++) {
    if (records[r]!.length !== width) {
      throw invalidInput(
        'csv',
        text,
        recordStarts[r]!,
        `a record of ${records[r]!.length} fields where the first has ${width}`,
      )
    }
  }
  if (!options.header) return records
  const names = (records[0] ?? []) as string[]
  const seen = new Set<string>()
  for (const name of names) {
    if (seen.has(name)) throw duplicateKey('csv', [], name)
    seen.add(name)
  }
  const rows: DataMap[] = []
  for (let r = 1; r < records.length; r++) {
    const row: DataMap = new Map()
    const record = records[r]!
    for (let f = 0; f < width; f++) row.set(names[f]!, record[f]!)
    rows.push(row)
  }
  return rows
}
