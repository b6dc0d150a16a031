import { compileRe2, compileV8, type LinearRegex, re2Char } from './linear.ts'
import { SHORT_CATEGORIES } from './unicode.ts'

// I-Regexp (RFC 9485), the dialect of JSONPath's match() and search() (RFC 9535 §2.4.6, 2.4.7), checked
// against its grammar and written in RE2 syntax with the same meaning: no \d \w \s, and `.` is any
// character but \n and \r (RFC 9485 §5.3). A pattern outside the grammar is not an I-Regexp: the function
// answers LogicalFalse for it (RFC 9535 §2.4.6). One quirk, kept as the JSONPath Compliance Test Suite
// has it: `^` and `$`, ordinary characters in RFC 9485's grammar, are anchors (start and end of the
// string), as they are once the pattern is handed to an ECMA-262 or PCRE engine the way RFC 9485 §5
// describes (`match(@, '^ab.*')` selects "abc", not "^abc").

const SINGLE_ESCAPES = new Set('()*+-.?[\\]^nrt{|}'.split(''))
// NormalChar excludes these (and the surrogates)
const NOT_NORMAL = new Set('.()*+?[\\]{|}'.split(''))

export function iregexpToRe2(pattern: string): string | undefined {
  const cps = Array.from(pattern, (ch) => ch.codePointAt(0)!)
  let i = 0
  const peek = () => (i < cps.length ? String.fromCodePoint(cps[i]!) : undefined)
  const fail = (): never => {
    throw new NotIRegexp()
  }
  const isSurrogate = (cp: number) => cp >= 0xd800 && cp <= 0xdfff

  const escaped = (): string => {
    // after "\": a single-char escape, or a category
    const ch = peek() ?? fail()
    i++
    if (ch === 'p' || ch === 'P') {
      const m = /^\{([A-Z][a-z]?)\}/.exec(String.fromCodePoint(...cps.slice(i, i + 5)))
      if (m === null || !SHORT_CATEGORIES.has(m[1]!) || m[1] === 'LC') fail()
      i += m![0].length
      return `\\${ch}{${m![1]}}`
    }
    if (!SINGLE_ESCAPES.has(ch)) fail()
    if (ch === 'n') return '\\n'
    if (ch === 'r') return '\\r'
    if (ch === 't') return '\\t'
    return re2Char(ch.codePointAt(0)!)
  }

  const classChar = (): string => {
    const cp = cps[i]!
    i++
    if (cp === 0x5c) return escaped()
    if (cp === 0x2d || cp === 0x5b || cp === 0x5d || isSurrogate(cp)) fail()
    return re2Char(cp)
  }

  const charClassExpr = (): string => {
    let out = '['
    if (peek() === '^') {
      i++
      out += '^'
    }
    if (peek() === '-') {
      i++
      out += '\\x{2d}'
    }
    while (peek() !== ']') {
      if (peek() === undefined) fail()
      if (peek() === '-') {
        // only as the last character
        i++
        if (peek() !== ']') fail()
        out += '\\x{2d}'
        break
      }
      const isEscapedCategory = peek() === '\\' && (cps[i + 1] === 0x70 || cps[i + 1] === 0x50)
      const start = classChar()
      if (!isEscapedCategory && peek() === '-' && cps[i + 1] !== 0x5d) {
        i++
        const atEnd = peek() === '\\' && (cps[i + 1] === 0x70 || cps[i + 1] === 0x50)
        if (atEnd) fail()
        const end = classChar()
        out += `${start}-${end}`
      } else out += start
    }
    i++
    return `${out}]`
  }

  const atom = (): string => {
    const ch = peek()!
    const cp = cps[i]!
    if (ch === '(') {
      i++
      const inner = regexp()
      if (peek() !== ')') fail()
      i++
      return `(?:${inner})`
    }
    if (ch === '.') {
      i++
      return '[^\\n\\r]'
    }
    if (ch === '[') {
      i++
      return charClassExpr()
    }
    if (ch === '\\') {
      i++
      return escaped()
    }
    if (NOT_NORMAL.has(ch) || isSurrogate(cp)) fail()
    i++
    if (ch === '^' || ch === '$') return ch
    return re2Char(cp)
  }

  const quantifier = (): string => {
    const ch = peek()
    if (ch === '*' || ch === '+' || ch === '?') {
      i++
      return ch
    }
    if (ch !== '{') return ''
    const m = /^\{(\d+)(,(\d*))?\}/.exec(String.fromCodePoint(...cps.slice(i, i + 24)))
    if (m === null) fail()
    if (m![3] !== undefined && m![3] !== '' && Number(m![3]) < Number(m![1])) fail()
    i += m![0].length
    return m![0]
  }

  const regexp = (): string => {
    let out = ''
    for (;;) {
      for (let ch = peek(); ch !== undefined && ch !== '|' && ch !== ')'; ch = peek()) {
        const a = atom()
        out += a + quantifier()
      }
      if (peek() !== '|') return out
      i++
      out += '|'
    }
  }

  try {
    const out = regexp()
    if (i < cps.length) fail()
    return out
  } catch (err) {
    if (err instanceof NotIRegexp) return undefined
    throw err
  }
}

class NotIRegexp extends Error {}

// The compiled pattern, or undefined when it is not an I-Regexp (or RE2 refuses it: a count over 1000).
export function compileIRegexp(pattern: string): LinearRegex | undefined {
  const translated = iregexpToRe2(pattern)
  if (translated === undefined) return undefined
  let re2: LinearRegex
  try {
    re2 = compileRe2(translated)
  } catch {
    return undefined
  }
  return (choiceFree(translated) ? compileV8(toV8(translated)) : undefined) ?? re2
}

// The translation's own escapes: code points, categories and \n \r \t; what is left outside them are
// the operators the translation wrote (quantifiers, alternation, groups, classes, anchors).
const ESCAPES = /\\(?:[xpP]\{[^}]*\}|[nrt])/g

// A translated pattern with no quantifier and no alternation (`pro$`, `^[A-Z][a-z]\.`: the common search()
// and match() of a literal) runs on V8's own RegExp (linear.ts, compileV8): each match attempt has no
// choice to undo, so V8's time is linear in the input too (issue 39's search() benchmark). Written in
// ECMA-262 with the same meaning: RE2's \x{…} is V8's \u{…} under the `u` flag (code points, as RE2 reads
// them), `.` was written as the class [^\n\r], `^` and `$` anchor the whole string in both (neither
// engine in multi-line mode), and \p{…} names the same general categories.
function choiceFree(translated: string): boolean {
  return !/[*+?{|]/.test(translated.replace(ESCAPES, ''))
}

function toV8(translated: string): string {
  return translated.replaceAll('\\x{', '\\u{')
}
