import { AppError } from '../../../errors.ts'
import { compileIRegexp } from '../regex/iregexp.ts'
import type {
  Argument,
  Call,
  Comparable,
  CompareOp,
  FunctionType,
  Logical,
  Query,
  Segment,
  Selector,
} from './ast.ts'

// A JSONPath query parsed to the letter of RFC 9535's grammar (§2 and its ABNF, appendix A) and type-checked
// (§2.4.3: function arguments and results, comparisons of singular queries only). What does not parse is
// ERR_INVALID_JSONPATH with the position (a UTF-16 offset into the query) where it went wrong.

// Integers in a query are I-JSON's exact range (§2.1): ±(2^53 - 1).
const MAX_INT = 2 ** 53 - 1
// Parentheses, filters and function calls nest at most this deep: the parser and the evaluator recurse
// once per level, and no real query nests more than a few.
export const MAX_NESTING = 64

// The function extensions of §2.4: parameter types and result type.
const FUNCTIONS: Record<Call['name'], { params: FunctionType[]; result: FunctionType }> = {
  length: { params: ['value'], result: 'value' },
  count: { params: ['nodes'], result: 'value' },
  match: { params: ['value', 'value'], result: 'logical' },
  search: { params: ['value', 'value'], result: 'logical' },
  value: { params: ['nodes'], result: 'value' },
}

const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON

export class PathSyntaxError extends AppError {
  constructor(message: string, position: number) {
    super('ERR_INVALID_JSONPATH', `${message} at position ${position}.`, { position })
  }
}

export function parseQuery(text: string): Query {
  const parser = new Parser(text)
  const query = parser.query()
  parser.end()
  return query
}

function isBlank(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r'
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9'
}

function isAlpha(c: string | undefined): boolean {
  return c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
}

// name-first: ALPHA / "_" / %x80-D7FF / %xE000-10FFFF (a surrogate pair is one such character)
function isNameFirst(text: string, i: number): boolean {
  const c = text[i]
  if (c === undefined) return false
  if (isAlpha(c) || c === '_') return true
  const code = text.charCodeAt(i)
  if (code >= 0x80 && code <= 0xd7ff) return true
  if (code >= 0xe000) return true
  // a well-formed surrogate pair
  return code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00
}

class Parser {
  private i = 0
  private depth = 0
  private readonly text: string

  constructor(text: string) {
    this.text = text
  }

  private fail(message: string, at = this.i): never {
    throw new PathSyntaxError(message, at)
  }

  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_NESTING) this.fail(`the query nests more than ${MAX_NESTING} levels`)
    const result = parse()
    this.depth--
    return result
  }

  private peek(offset = 0): string | undefined {
    return this.text[this.i + offset]
  }

  private skipBlanks(): void {
    while (isBlank(this.text[this.i])) this.i++
  }

  private expect(token: string): void {
    if (!this.text.startsWith(token, this.i)) this.fail(`expected "${token}"`)
    this.i += token.length
  }

  end(): void {
    if (this.i < this.text.length) this.fail('unexpected character')
  }

  query(): Query {
    const c = this.peek()
    if (c !== '$' && c !== '@') this.fail('a query starts with "$" or "@"')
    this.i++
    const segments: Segment[] = []
    for (;;) {
      // S between segments, but never after the last one
      const before = this.i
      this.skipBlanks()
      const next = this.peek()
      if (next !== '.' && next !== '[') {
        this.i = before
        break
      }
      segments.push(this.segment())
    }
    const singular = segments.every(
      (s) =>
        !s.descendant &&
        s.selectors.length === 1 &&
        (s.selectors[0]!.kind === 'name' || s.selectors[0]!.kind === 'index'),
    )
    return { root: c, segments, singular }
  }

  private segment(): Segment {
    if (this.peek() === '[') return { descendant: false, selectors: this.bracketed() }
    this.i++ // "."
    if (this.peek() === '.') {
      this.i++
      if (this.peek() === '[') return { descendant: true, selectors: this.bracketed() }
      if (this.peek() === '*') {
        this.i++
        return { descendant: true, selectors: [{ kind: 'wildcard' }] }
      }
      return { descendant: true, selectors: [{ kind: 'name', name: this.shorthand() }] }
    }
    if (this.peek() === '*') {
      this.i++
      return { descendant: false, selectors: [{ kind: 'wildcard' }] }
    }
    return { descendant: false, selectors: [{ kind: 'name', name: this.shorthand() }] }
  }

  private shorthand(): string {
    const start = this.i
    if (!isNameFirst(this.text, this.i)) this.fail('expected a member name')
    while (isNameFirst(this.text, this.i) || isDigit(this.peek())) {
      this.i += this.text.charCodeAt(this.i) >= 0xd800 && this.text.charCodeAt(this.i) <= 0xdbff ? 2 : 1
    }
    return this.text.slice(start, this.i)
  }

  private bracketed(): Selector[] {
    this.expect('[')
    const selectors: Selector[] = []
    for (;;) {
      this.skipBlanks()
      selectors.push(this.selector())
      this.skipBlanks()
      if (this.peek() === ',') {
        this.i++
        continue
      }
      this.expect(']')
      return selectors
    }
  }

  private selector(): Selector {
    const c = this.peek()
    if (c === "'" || c === '"') return { kind: 'name', name: this.string() }
    if (c === '*') {
      this.i++
      return { kind: 'wildcard' }
    }
    if (c === '?') {
      this.i++
      this.skipBlanks()
      return { kind: 'filter', test: this.nested(() => this.logical()) }
    }
    // index or slice
    const start = this.optionalInt()
    this.skipBlanks()
    if (this.peek() !== ':') {
      if (start === undefined) this.fail('expected a selector')
      return { kind: 'index', index: start }
    }
    this.i++
    this.skipBlanks()
    const end = this.optionalInt()
    this.skipBlanks()
    let step: number | undefined
    if (this.peek() === ':') {
      this.i++
      this.skipBlanks()
      step = this.optionalInt()
    }
    return { kind: 'slice', start, end, step }
  }

  private optionalInt(): number | undefined {
    const c = this.peek()
    if (c !== '-' && !isDigit(c)) return undefined
    return this.int()
  }

  private int(): number {
    const start = this.i
    if (this.peek() === '-') this.i++
    if (this.peek() === '0') {
      this.i++
      if (this.i - start === 2) this.fail('"-0" is not an integer', start)
      if (isDigit(this.peek())) this.fail('an integer has no leading zero', start)
    } else {
      if (!isDigit(this.peek()) || this.peek() === '0') this.fail('expected an integer')
      while (isDigit(this.peek())) this.i++
    }
    const value = Number(this.text.slice(start, this.i))
    if (Math.abs(value) > MAX_INT) this.fail('the integer is outside ±(2^53 - 1)', start)
    return value
  }

  private string(): string {
    const quote = this.peek()!
    const start = this.i
    this.i++
    let out = ''
    for (;;) {
      const c = this.peek()
      if (c === undefined) this.fail('unterminated string', start)
      this.i++
      if (c === quote) return out
      const code = c.charCodeAt(0)
      if (code < 0x20) this.fail('a control character must be escaped', this.i - 1)
      if (c !== '\\') {
        out += c
        continue
      }
      const e = this.peek()
      this.i++
      switch (e) {
        case 'b':
          out += '\b'
          break
        case 'f':
          out += '\f'
          break
        case 'n':
          out += '\n'
          break
        case 'r':
          out += '\r'
          break
        case 't':
          out += '\t'
          break
        case '/':
        case '\\':
          out += e
          break
        case 'u':
          out += this.unicodeEscape()
          break
        default:
          if (e === quote) out += e
          else this.fail('invalid escape', this.i - 2)
      }
    }
  }

  private hex4(): number {
    const digits = this.text.slice(this.i, this.i + 4)
    if (!/^[0-9a-fA-F]{4}$/.test(digits)) this.fail('expected four hex digits')
    this.i += 4
    return Number.parseInt(digits, 16)
  }

  // \uXXXX, a high surrogate only with its low one (§2.3.1.1 hexchar)
  private unicodeEscape(): string {
    const at = this.i - 2
    const first = this.hex4()
    if (first >= 0xdc00 && first <= 0xdfff) this.fail('a lone low surrogate', at)
    if (first < 0xd800 || first > 0xdbff) return String.fromCharCode(first)
    if (!this.text.startsWith('\\u', this.i)) this.fail('a high surrogate without its low one', at)
    this.i += 2
    const second = this.hex4()
    if (second < 0xdc00 || second > 0xdfff) this.fail('a high surrogate without its low one', at)
    return String.fromCharCode(first, second)
  }

  // logical-or-expr
  private logical(): Logical {
    let left = this.and()
    for (;;) {
      const before = this.i
      this.skipBlanks()
      if (!this.text.startsWith('||', this.i)) {
        this.i = before
        return left
      }
      this.i += 2
      this.skipBlanks()
      left = { kind: 'or', left, right: this.and() }
    }
  }

  private and(): Logical {
    let left = this.basic()
    for (;;) {
      const before = this.i
      this.skipBlanks()
      if (!this.text.startsWith('&&', this.i)) {
        this.i = before
        return left
      }
      this.i += 2
      this.skipBlanks()
      left = { kind: 'and', left, right: this.basic() }
    }
  }

  // paren-expr / comparison-expr / test-expr
  private basic(): Logical {
    const start = this.i
    if (this.peek() === '!') {
      this.i++
      this.skipBlanks()
      if (this.peek() === '(') return { kind: 'not', operand: this.paren() }
      const operand = this.operand()
      if (operand.kind === 'literal') this.fail('a literal is not a test', start)
      return { kind: 'not', operand: this.asTest(operand, start) }
    }
    if (this.peek() === '(') return this.paren()
    const left = this.operand()
    const before = this.i
    this.skipBlanks()
    const op = this.compareOp()
    if (op === undefined) {
      this.i = before
      return this.asTest(left, start)
    }
    this.skipBlanks()
    const rightAt = this.i
    const right = this.operand()
    return { kind: 'compare', op, left: this.comparable(left, start), right: this.comparable(right, rightAt) }
  }

  private paren(): Logical {
    this.expect('(')
    this.skipBlanks()
    const inner = this.nested(() => this.logical())
    this.skipBlanks()
    this.expect(')')
    return inner
  }

  private compareOp(): CompareOp | undefined {
    for (const op of ['==', '!=', '<=', '>=', '<', '>'] as const) {
      if (this.text.startsWith(op, this.i)) {
        this.i += op.length
        return op
      }
    }
    return undefined
  }

  // A test-expr: an existence test of a query, or a function whose result is logical or a nodelist.
  private asTest(operand: Comparable, at: number): Logical {
    if (operand.kind === 'query') return { kind: 'exists', query: operand.query }
    if (operand.kind === 'call') {
      if (FUNCTIONS[operand.call.name].result === 'value') {
        this.fail(`${operand.call.name}() gives a value, not a test`, at)
      }
      return { kind: 'call', call: operand.call }
    }
    this.fail('a literal is not a test', at)
  }

  // A comparable: a literal, a singular query, or a function whose result is a value.
  private comparable(operand: Comparable, at: number): Comparable {
    if (operand.kind === 'query' && !operand.query.singular)
      this.fail('only a singular query can be compared', at)
    if (operand.kind === 'call' && FUNCTIONS[operand.call.name].result !== 'value') {
      this.fail(`${operand.call.name}() gives no value to compare`, at)
    }
    return operand
  }

  // literal / query / function call (what may stand on either side of a comparison, or alone as a test)
  private operand(): Comparable {
    const c = this.peek()
    if (c === '$' || c === '@') return { kind: 'query', query: this.query() }
    if (c === "'" || c === '"') return { kind: 'literal', value: this.string() }
    if (c === '-' || isDigit(c)) return { kind: 'literal', value: this.number() }
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.i) && !this.isNameCharAt(this.i + word.length)) {
        this.i += word.length
        return { kind: 'literal', value }
      }
    }
    if (c !== undefined && c >= 'a' && c <= 'z') return { kind: 'call', call: this.nested(() => this.call()) }
    this.fail('expected a query, a literal or a function')
  }

  private isNameCharAt(i: number): boolean {
    const c = this.text[i]
    return c !== undefined && ((c >= 'a' && c <= 'z') || c === '_' || isDigit(c))
  }

  // number = (int / "-0") [frac] [exp], kept exact (a raw number when a double would not say it)
  private number(): unknown {
    const start = this.i
    if (this.peek() === '-') this.i++
    if (this.peek() === '0') this.i++
    else if (isDigit(this.peek())) while (isDigit(this.peek())) this.i++
    else this.fail('expected a number', start)
    if (this.peek() === '.') {
      this.i++
      if (!isDigit(this.peek())) this.fail('expected a digit after "."')
      while (isDigit(this.peek())) this.i++
    }
    if (this.peek() === 'e' || this.peek() === 'E') {
      this.i++
      if (this.peek() === '+' || this.peek() === '-') this.i++
      if (!isDigit(this.peek())) this.fail('expected a digit in the exponent')
      while (isDigit(this.peek())) this.i++
    }
    if (isDigit(this.peek())) this.fail('an integer has no leading zero', start)
    const text = this.text.slice(start, this.i)
    const value = Number(text)
    return String(value) === text ? value : rawJSON(text)
  }

  private call(): Call {
    const start = this.i
    while (this.isNameCharAt(this.i)) this.i++
    const name = this.text.slice(start, this.i)
    if (!Object.hasOwn(FUNCTIONS, name)) this.fail(`unknown function "${name}"`, start)
    const signature = FUNCTIONS[name as Call['name']]
    this.expect('(')
    this.skipBlanks()
    const args: Argument[] = []
    if (this.peek() !== ')') {
      for (;;) {
        const at = this.i
        args.push(this.argument(signature.params[args.length], at, name))
        this.skipBlanks()
        if (this.peek() !== ',') break
        this.i++
        this.skipBlanks()
      }
    }
    this.expect(')')
    if (args.length !== signature.params.length) {
      this.fail(`${name}() takes ${signature.params.length} argument(s)`, start)
    }
    const call: Call = { name: name as Call['name'], args }
    const pattern = args[1]
    if (
      (name === 'match' || name === 'search') &&
      pattern?.kind === 'literal' &&
      typeof pattern.value === 'string'
    ) {
      call.literalPattern = true
      call.pattern = compileIRegexp(pattern.value)
    }
    return call
  }

  // One argument, checked against its parameter's type (§2.4.3).
  private argument(type: FunctionType | undefined, at: number, name: string): Argument {
    if (type === undefined) this.fail(`${name}() takes fewer arguments`, at)
    const c = this.peek()
    const startsLogical = c === '!' || c === '('
    const operand = startsLogical ? undefined : this.operand()
    // an operand followed by a comparison or a logical operator is a logical expression
    if (operand !== undefined) {
      const before = this.i
      this.skipBlanks()
      const more =
        this.compareOp() !== undefined ||
        this.text.startsWith('&&', this.i) ||
        this.text.startsWith('||', this.i)
      this.i = before
      if (!more) return this.typed(operand, type, at, name)
      this.i = at
    }
    const test = this.logical()
    if (type !== 'logical')
      this.fail(`this argument of ${name}() must be a ${type === 'value' ? 'value' : 'query'}`, at)
    return { kind: 'logical', test }
  }

  private typed(operand: Comparable, type: FunctionType, at: number, name: string): Argument {
    const wrong = (): never => this.fail(`this argument of ${name}() is not of type ${type}`, at)
    if (type === 'value') {
      if (operand.kind === 'query' && !operand.query.singular) wrong()
      if (operand.kind === 'call' && FUNCTIONS[operand.call.name].result !== 'value') wrong()
      return operand
    }
    if (type === 'nodes') {
      if (operand.kind === 'literal') wrong()
      if (operand.kind === 'call' && FUNCTIONS[operand.call.name].result !== 'nodes') wrong()
      return operand
    }
    // logical: a query tests existence; a function must give a logical or a nodelist
    if (operand.kind === 'literal') wrong()
    if (operand.kind === 'call' && FUNCTIONS[operand.call.name].result === 'value') wrong()
    return operand
  }
}
