import { RE2JS } from 're2js'

// Regular expressions from tenants (JSON Schema `pattern`, JSONPath `match()`/`search()`) run on RE2JS, a
// port of RE2: matching is linear in the input whatever the pattern, so `^(a+)+$` against a long string
// costs what `^a+$` does (a backtracking engine, V8's included, takes exponential time there). The
// patterns are written in other dialects (ECMA-262 for JSON Schema, I-Regexp for JSONPath): ecma.ts and
// iregexp.ts translate them to RE2 syntax with the same meaning, or refuse them.

export interface LinearRegex {
  // which engine runs it (ecma.ts hands patterns of a linear shape to V8)
  engine: 're2' | 'v8'
  // anywhere in the input (JSON Schema `pattern`, JSONPath `search`)
  search(input: string): boolean
  // the whole input (JSONPath `match`)
  whole(input: string): boolean
}

// A pattern RE2 refuses once translated (a repeat count over 1000, a program too large): its message.
export class RegexRefused extends Error {}

export function compileRe2(translated: string): LinearRegex {
  let re: RE2JS
  try {
    re = RE2JS.compile(translated)
  } catch (err) {
    throw new RegexRefused((err as Error).message)
  }
  return { engine: 're2', search: (input) => re.test(input), whole: (input) => re.testExact(input) }
}

// A pattern of a shape whose match attempts have at most linear choices to undo, run on V8's own RegExp
// (ECMA-262 syntax, the `u` flag) rather than RE2JS: several times quicker on short strings (ecma.ts,
// iregexp.ts decide the shape). Undefined when u-mode refuses the syntax: the caller keeps RE2.
export function compileV8(source: string): LinearRegex | undefined {
  try {
    const re = new RegExp(source, 'u')
    const whole = new RegExp(`^(?:${source})$`, 'u')
    return { engine: 'v8', search: (input) => re.test(input), whole: (input) => whole.test(input) }
  } catch {
    return undefined
  }
}

// A code point as RE2 writes it anywhere, in a class or out of one.
export function re2Char(cp: number): string {
  return `\\x{${cp.toString(16)}}`
}
