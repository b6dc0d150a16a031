import { keepShape } from '../../../lib/kept-shapes.ts'
import { duplicateKey, invalidInput, tooDeep } from '../model/errors.ts'
import type { DataMap, DataValue } from '../model/value.ts'
import { matchDate, matchNumber } from './scalars.ts'

// TOML 1.0.0 to the value model: our own parser, because neither npm parser measured does TOML 1.0 exactly
// and losslessly (docs/decisions.md, "Data conversion"): numbers keep their text, dates their RFC 3339
// text, keys their order. A recursive descent over the text; values nest at most maxDepth levels, key
// paths included, so recursion is bounded.
//
// Which tables may still be written to (spec "Table", "Inline Table", "Array of Tables"):
// - a table defined by a header ([a.b]) may not be defined again, nor extended with dotted keys from
//   another section; one only created on the way to a header ([a] before [a.b.c]) may be defined once;
// - a table created by dotted keys may be extended by dotted keys within the same section only, and may
//   not be defined by a header (sub-tables of it may);
// - an inline table, and anything in one, is complete: nothing may be added to it;
// - an array of tables is extended by [[headers]] only; any other array is a value like any other.

interface TableFacts {
  // defined by a [header] or as an element of an [[array]]
  header: boolean
  // created by dotted keys, in this section (counted from 0 at the top)
  dottedIn: number
  // an inline table, or in one
  frozen: boolean
}

const WHITESPACE = /[ \t]*/y
const BARE_KEY = /[A-Za-z0-9_-]+/y

// characters no comment or single-line string may hold: controls other than tab
function isControl(c: number): boolean {
  return (c < 0x20 && c !== 0x09) || c === 0x7f
}

class TomlParser {
  private readonly text: string
  private readonly maxDepth: number
  private pos = 0
  // the keys to where the value being read goes: the header's, then the key's and the array indexes
  private path: string[] = []
  private section = 0
  private readonly facts = new WeakMap<DataMap, TableFacts>()
  private readonly tableArrays = new WeakSet<DataValue[]>()

  constructor(text: string, maxDepth: number) {
    this.text = text
    this.maxDepth = maxDepth
  }

  private fail(reason: string, at = this.pos): never {
    throw invalidInput('toml', this.text, at, reason)
  }

  private table(facts: Partial<TableFacts>): DataMap {
    const map: DataMap = new Map()
    this.facts.set(map, { header: false, dottedIn: -1, frozen: false, ...facts })
    return map
  }

  private factsOf(map: DataMap): TableFacts {
    return this.facts.get(map)!
  }

  private skipWhitespace(): void {
    WHITESPACE.lastIndex = this.pos
    WHITESPACE.exec(this.text)
    this.pos = WHITESPACE.lastIndex
  }

  private skipComment(): void {
    if (this.text.charCodeAt(this.pos) !== 0x23) return
    const n = this.text.length
    let i = this.pos + 1
    for (; i < n; i++) {
      const c = this.text.charCodeAt(i)
      if (c === 0x0a || (c === 0x0d && this.text.charCodeAt(i + 1) === 0x0a)) break
      if (isControl(c)) this.fail('a control character in a comment', i)
    }
    this.pos = i
  }

  // A newline (LF or CRLF); false at the end of the text or at anything else.
  private newline(): boolean {
    const c = this.text.charCodeAt(this.pos)
    if (c === 0x0a) {
      this.pos++
      return true
    }
    if (c === 0x0d && this.text.charCodeAt(this.pos + 1) === 0x0a) {
      this.pos += 2
      return true
    }
    return false
  }

  private endOfLine(): void {
    this.skipWhitespace()
    this.skipComment()
    if (this.pos < this.text.length && !this.newline()) this.fail('expected the end of the line')
  }

  parse(): DataMap {
    const root = this.table({ header: true })
    let current = root
    const n = this.text.length
    while (this.pos < n) {
      this.skipWhitespace()
      this.skipComment()
      if (this.newline() || this.pos >= n) continue
      if (this.text.charCodeAt(this.pos) === 0x5b) {
        this.section++
        const arrayOfTables = this.text.charCodeAt(this.pos + 1) === 0x5b
        const start = this.pos
        this.pos += arrayOfTables ? 2 : 1
        this.skipWhitespace()
        const keys = this.key()
        // the root is one level, each key one more
        if (keys.length + 1 > this.maxDepth) throw tooDeep(this.maxDepth)
        this.skipWhitespace()
        if (!this.text.startsWith(arrayOfTables ? ']]' : ']', this.pos))
          this.fail('expected "]" to end the header')
        this.pos += arrayOfTables ? 2 : 1
        current = arrayOfTables ? this.arrayTable(root, keys, start) : this.headerTable(root, keys, start)
        this.path = keys
      } else {
        this.keyValue(current)
      }
      this.endOfLine()
    }
    return root
  }

  // The table a header's keys lead to, through the last element of arrays of tables.
  private walk(root: DataMap, keys: string[], upTo: number, at: number): DataMap {
    let table = root
    for (let i = 0; i < upTo; i++) {
      const key = keys[i]!
      let next = table.get(key)
      if (next === undefined) {
        next = this.table({})
        table.set(key, next)
      } else if (Array.isArray(next) && this.tableArrays.has(next)) {
        next = next[next.length - 1]!
      }
      if (!(next instanceof Map)) this.fail(`the key "${key}" already holds a value that is not a table`, at)
      if (this.factsOf(next).frozen) this.fail(`the inline table "${key}" cannot be extended`, at)
      table = next
    }
    return table
  }

  private headerTable(root: DataMap, keys: string[], at: number): DataMap {
    const parent = this.walk(root, keys, keys.length - 1, at)
    const key = keys[keys.length - 1]!
    const existing = parent.get(key)
    if (existing === undefined) {
      const table = this.table({ header: true })
      parent.set(key, table)
      return table
    }
    if (!(existing instanceof Map))
      this.fail(`the key "${key}" already holds a value that is not a table`, at)
    const facts = this.factsOf(existing)
    if (facts.header || facts.dottedIn >= 0 || facts.frozen)
      this.fail(`the table "${key}" is defined twice`, at)
    facts.header = true
    return existing
  }

  private arrayTable(root: DataMap, keys: string[], at: number): DataMap {
    const parent = this.walk(root, keys, keys.length - 1, at)
    const key = keys[keys.length - 1]!
    let array = parent.get(key)
    if (array === undefined) {
      array = []
      this.tableArrays.add(array)
      parent.set(key, array)
    } else if (!Array.isArray(array) || !this.tableArrays.has(array)) {
      this.fail(`the key "${key}" already holds a value that is not an array of tables`, at)
    }
    const table = this.table({ header: true })
    array.push(table)
    return table
  }

  // key = value, into `table`; dotted keys create tables on the way.
  private keyValue(table: DataMap, inline = false): void {
    const path = this.path
    const depth = path.length
    const at = this.pos
    const keys = this.key()
    if (depth + keys.length > this.maxDepth) throw tooDeep(this.maxDepth)
    this.skipWhitespace()
    if (this.text.charCodeAt(this.pos) !== 0x3d) this.fail('expected "=" after the key')
    this.pos++
    this.skipWhitespace()
    let target = table
    for (let i = 0; i < keys.length - 1; i++) {
      const key = keys[i]!
      const next = target.get(key)
      if (next === undefined) {
        const created = this.table({ dottedIn: this.section, frozen: inline })
        target.set(key, created)
        target = created
        continue
      }
      if (!(next instanceof Map)) this.fail(`the key "${key}" already holds a value that is not a table`, at)
      const facts = this.factsOf(next)
      // within an inline table, the tables its own dotted keys made may be added to
      if (facts.frozen && !(inline && facts.dottedIn === this.section)) {
        this.fail(`the inline table "${key}" cannot be extended`, at)
      }
      if (facts.header || (facts.dottedIn >= 0 && facts.dottedIn !== this.section)) {
        this.fail(`the table "${key}" cannot be extended with dotted keys here`, at)
      }
      target = next
    }
    const key = keys[keys.length - 1]!
    if (target.has(key)) throw duplicateKey('toml', [...path, ...keys.slice(0, -1)], key)
    path.push(...keys)
    target.set(key, this.value())
    path.length = depth
  }

  // A key: bare or quoted parts, separated by dots (whitespace around them allowed).
  private key(): string[] {
    const keys: string[] = []
    for (;;) {
      const c = this.text.charCodeAt(this.pos)
      if (c === 0x22) keys.push(this.basicString())
      else if (c === 0x27) keys.push(this.literalString())
      else {
        BARE_KEY.lastIndex = this.pos
        const bare = BARE_KEY.exec(this.text)
        if (!bare) this.fail('expected a key')
        keys.push(bare[0])
        this.pos = BARE_KEY.lastIndex
      }
      this.skipWhitespace()
      if (this.text.charCodeAt(this.pos) !== 0x2e) return keys
      this.pos++
      this.skipWhitespace()
    }
  }

  // The value at this.path (its length is how deep it is)
  private value(): DataValue {
    const c = this.text.charCodeAt(this.pos)
    if (c === 0x22) {
      return this.text.startsWith('"""', this.pos) ? this.multilineBasicString() : this.basicString()
    }
    if (c === 0x27) {
      return this.text.startsWith("'''", this.pos) ? this.multilineLiteralString() : this.literalString()
    }
    if (c === 0x5b) return this.array()
    if (c === 0x7b) return this.inlineTable()
    if (this.text.startsWith('true', this.pos)) return this.word(true, 4)
    if (this.text.startsWith('false', this.pos)) return this.word(false, 5)
    const small = this.smallInteger()
    if (small !== undefined) return small
    const date = matchDate(this.text, this.pos)
    if (date === 'invalid') this.fail('not a valid date or time')
    const scalar = date ?? matchNumber(this.text, this.pos)
    if (scalar === 'range') this.fail('an integer outside the 64-bit range')
    if (scalar === undefined) this.fail('expected a value')
    this.pos = scalar.end
    this.delimited()
    return scalar.value
  }

  // The common case without the patterns of scalars.ts: up to 15 digits, no sign, no leading zero, no
  // underscore, then what may follow a value. Anything else (a date's "-", a float's ".") is theirs.
  private smallInteger(): number | undefined {
    const start = this.pos
    let i = start
    for (let c = this.text.charCodeAt(i); c >= 0x30 && c <= 0x39; c = this.text.charCodeAt(++i)) {}
    const length = i - start
    if (length === 0 || length > 15 || (length > 1 && this.text.charCodeAt(start) === 0x30)) return undefined
    const next = this.text.charCodeAt(i)
    const ends =
      Number.isNaN(next) ||
      next === 0x20 ||
      next === 0x09 ||
      next === 0x2c ||
      next === 0x5d ||
      next === 0x7d ||
      next === 0x23 ||
      next === 0x0a ||
      next === 0x0d
    if (!ends) return undefined
    this.pos = i
    this.delimited()
    return Number(this.text.slice(start, i))
  }

  private word(value: boolean, length: number): boolean {
    this.pos += length
    this.delimited()
    return value
  }

  // What may follow a scalar: whitespace, a separator, a comment or the end of a line.
  private delimited(): void {
    if (this.pos >= this.text.length) return
    const c = this.text.charCodeAt(this.pos)
    if (c === 0x20 || c === 0x09 || c === 0x2c || c === 0x5d || c === 0x7d || c === 0x23 || c === 0x0a) return
    if (c === 0x0d && this.text.charCodeAt(this.pos + 1) === 0x0a) return
    this.fail('unexpected character after a value')
  }

  // Whitespace, newlines and comments, as an array allows between its values.
  private skipArraySpace(): void {
    for (;;) {
      this.skipWhitespace()
      this.skipComment()
      if (!this.newline()) return
    }
  }

  private array(): DataValue[] {
    if (this.path.length + 1 > this.maxDepth) throw tooDeep(this.maxDepth)
    this.pos++
    const items: DataValue[] = []
    for (;;) {
      this.skipArraySpace()
      if (this.text.charCodeAt(this.pos) === 0x5d) break
      this.path.push(String(items.length))
      items.push(this.value())
      this.path.pop()
      this.skipArraySpace()
      const c = this.text.charCodeAt(this.pos)
      if (c === 0x2c) this.pos++
      else if (c === 0x5d) break
      else this.fail('expected "," or "]" in an array')
    }
    this.pos++
    return items
  }

  // On one line; no trailing comma (TOML 1.0).
  private inlineTable(): DataMap {
    if (this.path.length + 1 > this.maxDepth) throw tooDeep(this.maxDepth)
    this.pos++
    const table = this.table({ frozen: true })
    this.skipWhitespace()
    if (this.text.charCodeAt(this.pos) === 0x7d) {
      this.pos++
      return table
    }
    for (;;) {
      this.skipWhitespace()
      this.keyValue(table, true)
      this.skipWhitespace()
      const c = this.text.charCodeAt(this.pos)
      this.pos++
      if (c === 0x7d) return table
      if (c !== 0x2c) this.fail('expected "," or "}" in an inline table', this.pos - 1)
    }
  }

  private escape(): string {
    const c = this.text[this.pos + 1]
    const simple = c === undefined ? undefined : SIMPLE_ESCAPES[c]
    if (simple !== undefined) {
      this.pos += 2
      return simple
    }
    const length = c === 'u' ? 4 : c === 'U' ? 8 : 0
    const hex = this.text.slice(this.pos + 2, this.pos + 2 + length)
    if (length === 0 || !/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== length) this.fail('an invalid escape')
    const codePoint = Number.parseInt(hex, 16)
    if (codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) {
      this.fail('an escape that is not a Unicode scalar value')
    }
    this.pos += 2 + length
    return String.fromCodePoint(codePoint)
  }

  private basicString(): string {
    this.pos++
    let out = ''
    let from = this.pos
    for (;;) {
      const c = this.text.charCodeAt(this.pos)
      if (c === 0x22) break
      if (Number.isNaN(c) || c === 0x0a || c === 0x0d) this.fail('a string is not closed on its line')
      if (c === 0x5c) {
        out += this.text.slice(from, this.pos) + this.escape()
        from = this.pos
      } else {
        if (isControl(c)) this.fail('a control character in a string')
        this.pos++
      }
    }
    out += this.text.slice(from, this.pos)
    this.pos++
    return out
  }

  private literalString(): string {
    const start = ++this.pos
    for (;;) {
      const c = this.text.charCodeAt(this.pos)
      if (c === 0x27) break
      if (Number.isNaN(c) || c === 0x0a || c === 0x0d) this.fail('a string is not closed on its line')
      if (isControl(c)) this.fail('a control character in a string')
      this.pos++
    }
    return this.text.slice(start, this.pos++)
  }

  // After the opening delimiter, a newline right away is not part of the string.
  private openMultiline(): void {
    this.pos += 3
    this.newline()
  }

  // At quotes: the closing delimiter when there are 3 to 5 (the 1 or 2 before it belong to the string),
  // undefined when fewer, refused when more.
  private closing(quote: number): number | undefined {
    let count = 0
    while (this.text.charCodeAt(this.pos + count) === quote) count++
    if (count < 3) return undefined
    if (count > 5) this.fail('too many quotes at the end of a string')
    return count - 3
  }

  private multilineBasicString(): string {
    this.openMultiline()
    let out = ''
    for (;;) {
      const c = this.text.charCodeAt(this.pos)
      if (Number.isNaN(c)) this.fail('a string is not closed')
      if (c === 0x22) {
        const extra = this.closing(0x22)
        if (extra !== undefined) {
          this.pos += extra + 3
          return out + '"'.repeat(extra)
        }
        out += '"'
        this.pos++
      } else if (c === 0x5c) {
        if (this.lineEndingBackslash()) continue
        out += this.escape()
      } else if (this.newline()) {
        out += '\n'
      } else {
        if (isControl(c)) this.fail('a control character in a string')
        out += this.text[this.pos++]
      }
    }
  }

  // A backslash at the end of a line: it, the newline and all whitespace and newlines after go.
  private lineEndingBackslash(): boolean {
    let i = this.pos + 1
    while (this.text.charCodeAt(i) === 0x20 || this.text.charCodeAt(i) === 0x09) i++
    const c = this.text.charCodeAt(i)
    if (c !== 0x0a && !(c === 0x0d && this.text.charCodeAt(i + 1) === 0x0a)) return false
    this.pos = i
    for (;;) {
      this.skipWhitespace()
      if (!this.newline()) return true
    }
  }

  private multilineLiteralString(): string {
    this.openMultiline()
    let out = ''
    for (;;) {
      const c = this.text.charCodeAt(this.pos)
      if (Number.isNaN(c)) this.fail('a string is not closed')
      if (c === 0x27) {
        const extra = this.closing(0x27)
        if (extra !== undefined) {
          this.pos += extra + 3
          return out + "'".repeat(extra)
        }
        out += "'"
        this.pos++
      } else if (this.newline()) {
        out += '\n'
      } else {
        if (isControl(c)) this.fail('a control character in a string')
        out += this.text[this.pos++]
      }
    }
  }
}
keepShape(new TomlParser('', 1))

const SIMPLE_ESCAPES: Record<string, string> = {
  b: '\b',
  t: '\t',
  n: '\n',
  f: '\f',
  r: '\r',
  '"': '"',
  '\\': '\\',
}

export function readToml(text: string, maxDepth: number): DataMap {
  return new TomlParser(text, maxDepth).parse()
}
