import { AppError } from '../../../errors.ts'
import { compareNumbers } from '../decimal.ts'
import { isJsonNumber } from '../number.ts'
import { compileIRegexp } from '../regex/iregexp.ts'
import type { LinearRegex } from '../regex/linear.ts'
import { isObject, type JsonObject, jsonEqual } from '../value.ts'
import type { Argument, Call, Comparable, Logical, Query, Segment, Selector } from './ast.ts'

// RFC 9535 evaluation over the lossless value model (numbers compare by exact decimal value). A node is a
// value and the way to it (a linked path, written out only for the answer). Every node a step visits
// counts against `maxSteps`: a query such as `$..*..*..*` over a deep document, or a filter that runs a
// descendant query per element, stops with ERR_COMPUTE_LIMIT instead of running for minutes.

export interface PathLink {
  parent: PathLink | undefined
  key: string | number
}

export interface Node {
  value: unknown
  path: PathLink | undefined
}

// The absence of a value (RFC 9535 §2.4.1 "Nothing"): an empty nodelist in a value position.
const NOTHING = Symbol('Nothing')
type Value = unknown

export class Evaluator {
  private steps = 0
  private readonly maxSteps: number
  private readonly root: unknown
  // absolute queries inside filters do not depend on the current node: evaluated once
  private readonly absolute = new Map<Query, Node[]>()
  // match()/search() patterns that are not literals, compiled once per query run (bounded by the steps)
  private readonly patterns = new Map<string, LinearRegex | undefined>()

  constructor(root: unknown, maxSteps: number) {
    this.root = root
    this.maxSteps = maxSteps
  }

  private step(n = 1): void {
    this.steps += n
    if (this.steps > this.maxSteps) {
      throw new AppError('ERR_COMPUTE_LIMIT', `The query visited more than ${this.maxSteps} nodes.`, {
        reason: 'steps',
        max_steps: this.maxSteps,
      })
    }
  }

  run(query: Query, current?: Node): Node[] {
    if (query.root === '$' && current !== undefined) {
      const known = this.absolute.get(query)
      if (known !== undefined) return known
      const nodes = this.run(query)
      this.absolute.set(query, nodes)
      return nodes
    }
    let nodes: Node[] = [
      query.root === '$' || current === undefined ? { value: this.root, path: undefined } : current,
    ]
    for (const segment of query.segments) nodes = this.segment(segment, nodes)
    return nodes
  }

  private segment(segment: Segment, input: Node[]): Node[] {
    const out: Node[] = []
    for (const node of input) {
      if (segment.descendant) this.descend(node, segment.selectors, out)
      else for (const selector of segment.selectors) this.select(selector, node, out)
    }
    return out
  }

  // The node and its descendants, in document order (pre-order, an array's items by index), each selected.
  private descend(start: Node, selectors: Selector[], out: Node[]): void {
    const stack: Node[] = [start]
    while (stack.length > 0) {
      const node = stack.pop()!
      this.step()
      for (const selector of selectors) this.select(selector, node, out)
      const value = node.value
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) {
          if (isContainer(value[i])) stack.push({ value: value[i], path: { parent: node.path, key: i } })
        }
      } else if (isObject(value)) {
        const keys = Object.keys(value)
        for (let i = keys.length - 1; i >= 0; i--) {
          const item = value[keys[i]!]
          if (isContainer(item)) stack.push({ value: item, path: { parent: node.path, key: keys[i]! } })
        }
      }
    }
  }

  private select(selector: Selector, node: Node, out: Node[]): void {
    const value = node.value
    switch (selector.kind) {
      case 'name':
        if (isObject(value) && Object.hasOwn(value, selector.name)) {
          this.step()
          out.push({ value: value[selector.name], path: { parent: node.path, key: selector.name } })
        }
        return
      case 'wildcard':
        this.children(node, (child) => out.push(child))
        return
      case 'index': {
        if (!Array.isArray(value)) return
        const i = selector.index < 0 ? value.length + selector.index : selector.index
        if (i >= 0 && i < value.length) {
          this.step()
          out.push({ value: value[i], path: { parent: node.path, key: i } })
        }
        return
      }
      case 'slice':
        if (Array.isArray(value)) this.slice(selector, value, node, out)
        return
      case 'filter':
        this.children(node, (child) => {
          if (this.test(selector.test, child)) out.push(child)
        })
    }
  }

  private children(node: Node, each: (child: Node) => void): void {
    const value = node.value
    if (Array.isArray(value)) {
      this.step(value.length)
      for (let i = 0; i < value.length; i++) each({ value: value[i], path: { parent: node.path, key: i } })
    } else if (isObject(value)) {
      const keys = Object.keys(value)
      this.step(keys.length)
      for (const key of keys) each({ value: (value as JsonObject)[key], path: { parent: node.path, key } })
    }
  }

  // §2.3.4.2.2
  private slice(
    selector: Extract<Selector, { kind: 'slice' }>,
    value: unknown[],
    node: Node,
    out: Node[],
  ): void {
    const len = value.length
    const step = selector.step ?? 1
    if (step === 0) return
    const normal = (i: number) => (i >= 0 ? i : len + i)
    const start = normal(selector.start ?? (step > 0 ? 0 : len - 1))
    // the default end, -len - 1 for a negative step, normalizes to -1
    const end = selector.end === undefined ? (step > 0 ? len : -1) : normal(selector.end)
    if (step > 0) {
      const lower = Math.min(Math.max(start, 0), len)
      const upper = Math.min(Math.max(end, 0), len)
      this.step(Math.max(0, Math.ceil((upper - lower) / step)))
      for (let i = lower; i < upper; i += step)
        out.push({ value: value[i], path: { parent: node.path, key: i } })
    } else {
      const upper = Math.min(Math.max(start, -1), len - 1)
      const lower = Math.min(Math.max(end, -1), len - 1)
      this.step(Math.max(0, Math.ceil((upper - lower) / -step)))
      for (let i = upper; lower < i; i += step)
        out.push({ value: value[i], path: { parent: node.path, key: i } })
    }
  }

  private test(logical: Logical, current: Node): boolean {
    switch (logical.kind) {
      case 'or':
        return this.test(logical.left, current) || this.test(logical.right, current)
      case 'and':
        return this.test(logical.left, current) && this.test(logical.right, current)
      case 'not':
        return !this.test(logical.operand, current)
      case 'exists':
        return this.run(logical.query, current).length > 0
      case 'compare':
        return compare(
          logical.op,
          this.comparable(logical.left, current),
          this.comparable(logical.right, current),
        )
      case 'call': {
        const result = this.call(logical.call, current)
        return Array.isArray(result) ? result.length > 0 : result === true
      }
    }
  }

  private comparable(operand: Comparable, current: Node): Value {
    if (operand.kind === 'literal') return operand.value
    if (operand.kind === 'query') {
      const nodes = this.run(operand.query, current)
      return nodes.length === 1 ? nodes[0]!.value : NOTHING
    }
    return this.call(operand.call, current)
  }

  // A value argument (a singular query's node's value, or Nothing), or a nodelist for count() and value().
  private argument(arg: Argument, current: Node): Value | Node[] {
    switch (arg.kind) {
      case 'literal':
        return arg.value
      case 'query': {
        const nodes = this.run(arg.query, current)
        return nodes
      }
      case 'call':
        return this.call(arg.call, current)
      case 'logical':
        return this.test(arg.test, current)
    }
  }

  private valueArgument(arg: Argument, current: Node): Value {
    const value = this.argument(arg, current)
    if (arg.kind !== 'query') return value
    const nodes = value as Node[]
    return nodes.length === 1 ? nodes[0]!.value : NOTHING
  }

  // length, count, match, search, value (§2.4.4-2.4.8). Logical results are booleans; value results a
  // value or NOTHING.
  private call(call: Call, current: Node): Value {
    switch (call.name) {
      case 'length': {
        const v = this.valueArgument(call.args[0]!, current)
        if (typeof v === 'string') return codePoints(v)
        if (Array.isArray(v)) return v.length
        if (isObject(v)) return Object.keys(v).length
        return NOTHING
      }
      case 'count':
        return (this.argument(call.args[0]!, current) as Node[]).length
      case 'value': {
        const nodes = this.argument(call.args[0]!, current) as Node[]
        return nodes.length === 1 ? nodes[0]!.value : NOTHING
      }
      case 'match':
      case 'search': {
        const subject = this.valueArgument(call.args[0]!, current)
        if (typeof subject !== 'string') return false
        const re = call.literalPattern
          ? call.pattern
          : this.pattern(this.valueArgument(call.args[1]!, current))
        if (re === undefined) return false
        this.step(Math.ceil(subject.length / 64))
        return call.name === 'match' ? re.whole(subject) : re.search(subject)
      }
    }
  }

  private pattern(value: Value): LinearRegex | undefined {
    if (typeof value !== 'string') return undefined
    if (!this.patterns.has(value)) {
      this.step(value.length)
      this.patterns.set(value, compileIRegexp(value))
    }
    return this.patterns.get(value)
  }
}

function isContainer(value: unknown): boolean {
  return Array.isArray(value) || isObject(value)
}

function codePoints(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

// Strings by Unicode scalar values (RFC 9535 §2.3.5.2.2), not UTF-16 units: they differ where a
// character above U+FFFF meets one in U+E000-U+FFFF.
function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    const xs = x >= 0xd800 && x <= 0xdfff
    const ys = y >= 0xd800 && y <= 0xdfff
    if (xs !== ys) return xs ? 1 : -1
    return x < y ? -1 : 1
  }
  return a.length - b.length
}

function equal(a: Value, b: Value): boolean {
  if (a === NOTHING || b === NOTHING) return a === b
  return jsonEqual(a, b)
}

function less(a: Value, b: Value): boolean {
  if (isJsonNumber(a) && isJsonNumber(b)) return compareNumbers(a, b) < 0
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b) < 0
  return false
}

function compare(op: string, a: Value, b: Value): boolean {
  switch (op) {
    case '==':
      return equal(a, b)
    case '!=':
      return !equal(a, b)
    case '<':
      return less(a, b)
    case '<=':
      return less(a, b) || equal(a, b)
    case '>':
      return less(b, a)
    default:
      return less(b, a) || equal(a, b)
  }
}
