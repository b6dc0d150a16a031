import { compileRe2, compileV8, type LinearRegex, RegexRefused, re2Char } from './linear.ts'
import { categoryName } from './unicode.ts'

// An ECMA-262 regular expression (JSON Schema's dialect for `pattern` and `patternProperties`), read with
// the `u` flag's grammar (code points, strict escapes) and written in RE2 syntax with the same meaning:
// `.` excludes ECMA's four line terminators, `\s` is ECMA's Unicode white space, `\d \w \b` are ASCII in
// both, `\uXXXX` and `\u{X}` become `\x{X}`, surrogate pairs one code point. What RE2 cannot run in linear
// time is refused, never approximated: lookahead and lookbehind, backreferences, repeat counts over 1000.
// Unlike strict `u`-mode, a lone `]` or `}`, or a `{` that starts no quantifier, is a literal, as web
// browsers read it (Annex B) and as most JSON Schema implementations accept it.

export class RegexSyntaxError extends Error {}

const SYNTAX = new Set('^$\\.*+?()[]{}|/'.split(''))
// ECMA WhiteSpace and LineTerminator: what \s matches
const SPACE_RANGES: [number, number][] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]
const ranges = (list: [number, number][]) =>
  list.map(([a, b]) => (a === b ? re2Char(a) : `${re2Char(a)}-${re2Char(b)}`)).join('')
const SPACE = ranges(SPACE_RANGES)
const NOT_SPACE = ranges(complement(SPACE_RANGES))
const DOT = `[^${ranges([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
])}]`

function complement(list: [number, number][]): [number, number][] {
  const out: [number, number][] = []
  let next = 0
  for (const [a, b] of list) {
    if (a > next) out.push([next, a - 1])
    next = b + 1
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff])
  return out
}

// A pattern of a shape no backtracking engine can be slow on runs on V8's own RegExp (the ECMA-262 engine,
// so its meaning is the standard's exactly, and it is several times quicker than RE2JS on short strings);
// every other pattern on RE2. The shape: no alternation, and no repetition of variable length, except one
// over a single character in a pattern anchored with a leading `^` (`^[A-Z]{3}-[0-9]{4}$`, `^[a-z0-9-]+$`).
// Each match attempt then has at most one choice to undo, one character at a time, and there is one
// attempt: time linear in the input.
// RE2 compiles every pattern first, V8's included: its limits (repeat counts up to 1000, a program of
// bounded size) bound the length of one match attempt, which V8's time is linear in.
export function compileEcma(pattern: string): LinearRegex {
  const translator = new Translator(pattern)
  const re2 = compileRe2(translator.run())
  // a pattern u-mode refuses (a lone "]" or "{", which the translation reads as literals) stays on RE2
  return (translator.backtrackingIsLinear() ? compileV8(pattern) : undefined) ?? re2
}

class Translator {
  private i = 0
  private readonly cps: number[]
  // what backtrackingIsLinear() reads: alternations, repetitions of variable length, whether one of
  // them repeats more than a single character, and whether the pattern starts with "^"
  private alternations = 0
  private variable = 0
  private variableOverMany = false
  private anchored = false

  constructor(pattern: string) {
    this.cps = Array.from(pattern, (ch) => ch.codePointAt(0)!)
  }

  backtrackingIsLinear(): boolean {
    if (this.alternations > 0 || this.variableOverMany) return false
    return this.variable === 0 || (this.variable === 1 && this.anchored)
  }

  run(): string {
    this.anchored = this.cps[0] === 0x5e
    const out = this.disjunction()
    if (this.i < this.cps.length) throw new RegexSyntaxError(`unmatched ")" at ${this.i}`)
    return out
  }

  private peek(offset = 0): string | undefined {
    const cp = this.cps[this.i + offset]
    return cp === undefined ? undefined : String.fromCodePoint(cp)
  }

  private disjunction(): string {
    let out = this.alternative()
    while (this.peek() === '|') {
      this.alternations++
      this.i++
      out += `|${this.alternative()}`
    }
    return out
  }

  private alternative(): string {
    let out = ''
    for (let ch = this.peek(); ch !== undefined && ch !== '|' && ch !== ')'; ch = this.peek()) {
      out += this.term()
    }
    return out
  }

  private term(): string {
    const ch = this.peek()!
    if (ch === '^' || ch === '$') {
      this.i++
      return ch === '^' ? '^' : '$'
    }
    if (ch === '\\' && (this.peek(1) === 'b' || this.peek(1) === 'B')) {
      this.i += 2
      return `\\${this.peek(-1)}`
    }
    if (ch === '(' && this.peek(1) === '?') {
      const kind = this.peek(2)
      const kind2 = this.peek(3)
      if (kind === '=' || kind === '!' || (kind === '<' && (kind2 === '=' || kind2 === '!'))) {
        throw new RegexRefused('lookaround assertions cannot run in linear time')
      }
    }
    const isGroup = ch === '('
    const variableBefore = this.variable
    const atom = this.atom()
    const q = this.quantifier(atom)
    const m = /^\{(\d+)(,(\d*))?\}/.exec(q)
    const fixed = q === '' || (m !== null && m[3] === m[1]) || (m !== null && m[2] === undefined)
    if (!fixed) this.variable++
    // a repeated group may undo its repetitions in many ways when it is itself of variable length
    if (isGroup && q !== '' && (!fixed || this.variable > variableBefore)) this.variableOverMany = true
    return atom + q
  }

  private quantifier(atom: string): string {
    const ch = this.peek()
    let q = ''
    if (ch === '*' || ch === '+' || ch === '?') {
      this.i++
      q = ch
    } else if (ch === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.rest())
      if (m === null) return ''
      this.i += m[0].length
      if (m[3] !== undefined && m[3] !== '' && Number(m[3]) < Number(m[1])) {
        throw new RegexSyntaxError('numbers out of order in {} quantifier')
      }
      q = m[0]
    } else return ''
    if (atom === '') throw new RegexSyntaxError('nothing to repeat')
    if (this.peek() === '?') {
      this.i++
      q += '?'
    }
    return q
  }

  private rest(): string {
    return String.fromCodePoint(...this.cps.slice(this.i, this.i + 24))
  }

  private atom(): string {
    const ch = this.peek()!
    const cp = this.cps[this.i]!
    this.i++
    switch (ch) {
      case '.':
        return DOT
      case '(':
        return this.group()
      case '[':
        return this.charClass()
      case '\\':
        return this.atomEscape()
      case '*':
      case '+':
      case '?':
        throw new RegexSyntaxError('nothing to repeat')
      case '{':
        if (/^\d+(,\d*)?\}/.test(this.rest())) throw new RegexSyntaxError('nothing to repeat')
        return re2Char(cp)
      default:
        return re2Literal(cp)
    }
  }

  private group(): string {
    let open = '('
    if (this.peek() === '?') {
      if (this.peek(1) === ':') {
        this.i += 2
        open = '(?:'
      } else if (this.peek(1) === '<') {
        const m = /^\?<([A-Za-z_$][\w$]*)>/.exec(this.rest())
        if (m === null) throw new RegexSyntaxError('invalid group name')
        this.i += m[0].length
        open = `(?P<${m[1]}>`
      } else throw new RegexSyntaxError('invalid group')
    }
    const inner = this.disjunction()
    if (this.peek() !== ')') throw new RegexSyntaxError('unterminated group')
    this.i++
    return `${open}${inner})`
  }

  // An escape outside a class.
  private atomEscape(): string {
    const ch = this.peek()
    if (ch === undefined) throw new RegexSyntaxError('\\ at end of pattern')
    if (ch === 'k' || (ch >= '1' && ch <= '9')) {
      throw new RegexRefused('backreferences cannot run in linear time')
    }
    if (ch === 's') {
      this.i++
      return `[${SPACE}]`
    }
    if (ch === 'S') {
      this.i++
      return `[${NOT_SPACE}]`
    }
    if (ch === 'd' || ch === 'D' || ch === 'w' || ch === 'W') {
      this.i++
      return `\\${ch}`
    }
    if (ch === 'p' || ch === 'P') return this.property()
    return re2Char(this.characterEscape())
  }

  // \p{...} / \P{...}: general categories and scripts, which RE2 knows by name.
  private property(): string {
    const negated = this.peek() === 'P'
    const m = /^[pP]\{([A-Za-z_]+)(=([A-Za-z_]+))?\}/.exec(this.rest())
    if (m === null) throw new RegexSyntaxError('invalid property name')
    this.i += m[0].length
    const [, name, , value] = m as unknown as [string, string, string | undefined, string | undefined]
    let re2Name: string | undefined
    if (value === undefined) re2Name = categoryName(name)
    else if (name === 'General_Category' || name === 'gc') re2Name = categoryName(value)
    else if (name === 'Script' || name === 'sc') re2Name = value
    else throw new RegexRefused(`the Unicode property ${name} is not supported`)
    if (re2Name === undefined) throw new RegexRefused(`the Unicode property ${m[1]} is not supported`)
    return `\\${negated ? 'P' : 'p'}{${re2Name}}`
  }

  // A character escape, in a class or out of one: its code point.
  private characterEscape(inClass = false): number {
    const ch = this.peek()!
    this.i++
    switch (ch) {
      case 't':
        return 9
      case 'n':
        return 10
      case 'v':
        return 11
      case 'f':
        return 12
      case 'r':
        return 13
      case '0':
        if (/^\d/.test(this.peek() ?? '')) throw new RegexSyntaxError('invalid decimal escape')
        return 0
      case 'c': {
        const letter = this.peek()
        if (letter === undefined || !/^[A-Za-z]$/.test(letter))
          throw new RegexSyntaxError('invalid \\c escape')
        this.i++
        return letter.charCodeAt(0) % 32
      }
      case 'x': {
        const m = /^[0-9a-fA-F]{2}/.exec(this.rest())
        if (m === null) throw new RegexSyntaxError('invalid \\x escape')
        this.i += 2
        return Number.parseInt(m[0], 16)
      }
      case 'u':
        return this.unicodeEscape()
      default:
        if (SYNTAX.has(ch) || (ch === '-' && inClass)) return ch.codePointAt(0)!
        throw new RegexSyntaxError(`invalid escape \\${ch}`)
    }
  }

  private unicodeEscape(): number {
    const braced = /^\{([0-9a-fA-F]+)\}/.exec(this.rest())
    if (braced !== null) {
      const cp = Number.parseInt(braced[1]!, 16)
      if (cp > 0x10ffff) throw new RegexSyntaxError('invalid unicode escape')
      this.i += braced[0].length
      return cp
    }
    const m = /^[0-9a-fA-F]{4}/.exec(this.rest())
    if (m === null) throw new RegexSyntaxError('invalid unicode escape')
    this.i += 4
    const cp = Number.parseInt(m[0], 16)
    // a surrogate pair written as two escapes is one code point
    const low = /^\\u(d[c-f][0-9a-f]{2})/i.exec(this.rest())
    if (cp >= 0xd800 && cp <= 0xdbff && low !== null) {
      this.i += 6
      return 0x10000 + ((cp - 0xd800) << 10) + (Number.parseInt(low[1]!, 16) - 0xdc00)
    }
    return cp
  }

  private charClass(): string {
    let negated = false
    if (this.peek() === '^') {
      negated = true
      this.i++
    }
    const parts: string[] = []
    while (this.peek() !== ']') {
      if (this.peek() === undefined) throw new RegexSyntaxError('unterminated character class')
      const start = this.classAtom()
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.i++
        const end = this.classAtom()
        if (typeof start !== 'number' || typeof end !== 'number') {
          throw new RegexSyntaxError('invalid character class range')
        }
        if (end < start) throw new RegexSyntaxError('range out of order in character class')
        parts.push(`${re2Char(start)}-${re2Char(end)}`)
      } else parts.push(typeof start === 'number' ? re2Char(start) : start)
    }
    this.i++
    // RE2 has no empty class: [] matches nothing, [^] anything
    if (parts.length === 0) return negated ? '[\\x{0}-\\x{10ffff}]' : '[^\\x{0}-\\x{10ffff}]'
    return `[${negated ? '^' : ''}${parts.join('')}]`
  }

  // A class member: a code point, or a class escape written for inside an RE2 class.
  private classAtom(): number | string {
    const cp = this.cps[this.i]!
    this.i++
    if (cp !== 0x5c) return cp
    const ch = this.peek()
    if (ch === undefined) throw new RegexSyntaxError('\\ at end of pattern')
    if (ch === 'b') {
      this.i++
      return 8
    }
    if (ch === 's' || ch === 'S') {
      this.i++
      return ch === 's' ? SPACE : NOT_SPACE
    }
    if (ch === 'd' || ch === 'D' || ch === 'w' || ch === 'W') {
      this.i++
      return `\\${ch}`
    }
    if (ch === 'p' || ch === 'P') return this.property()
    if (ch >= '1' && ch <= '9') throw new RegexSyntaxError('invalid class escape')
    return this.characterEscape(true)
  }
}

function re2Literal(cp: number): string {
  // ASCII letters, digits and space as themselves (readable, and what RE2 keeps literal); all else escaped
  if ((cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x20) {
    return String.fromCharCode(cp)
  }
  return re2Char(cp)
}
