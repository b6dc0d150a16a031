import type { LinearRegex } from '../regex/linear.ts'

// A parsed JSONPath query (RFC 9535).

export interface Query {
  // `$` (the document) or `@` (the current node, in a filter)
  root: '$' | '@'
  segments: Segment[]
  // only name and index selectors, one per segment, no descendants (RFC 9535 §2.3.5.1)
  singular: boolean
}

export interface Segment {
  descendant: boolean
  selectors: Selector[]
}

export type Selector =
  | { kind: 'name'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'index'; index: number }
  | { kind: 'slice'; start: number | undefined; end: number | undefined; step: number | undefined }
  | { kind: 'filter'; test: Logical }

// The three types of function expressions (RFC 9535 §2.4.1).
export type FunctionType = 'value' | 'logical' | 'nodes'

export type Logical =
  | { kind: 'or' | 'and'; left: Logical; right: Logical }
  | { kind: 'not'; operand: Logical }
  | { kind: 'exists'; query: Query }
  | { kind: 'compare'; op: CompareOp; left: Comparable; right: Comparable }
  | { kind: 'call'; call: Call }

export type CompareOp = '==' | '!=' | '<' | '<=' | '>' | '>='

export type Comparable =
  | { kind: 'literal'; value: unknown }
  | { kind: 'query'; query: Query }
  | { kind: 'call'; call: Call }

export type Argument =
  | { kind: 'literal'; value: unknown }
  | { kind: 'query'; query: Query }
  | { kind: 'call'; call: Call }
  | { kind: 'logical'; test: Logical }

export interface Call {
  name: 'length' | 'count' | 'match' | 'search' | 'value'
  args: Argument[]
  // match() and search() with a string literal pattern: compiled once, when parsed (undefined: not an
  // I-Regexp, so the function is always false); other patterns are compiled when met
  pattern?: LinearRegex | undefined
  literalPattern?: boolean
}
