import { decimalKey, isRawNumber } from '../number.ts'

// A JSON value's canonical text: equal values (by exact decimal value, in any key order) get the same
// text, different ones different texts. enum looks values up by it, uniqueItems finds duplicates with it:
// linear in the values, where comparing each pair would be quadratic. Iterative: any depth.
export function canonicalKey(root: unknown): string {
  const parts: string[] = []
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const value = stack.pop()
    if (value instanceof Literal) {
      parts.push(value.text)
    } else if (typeof value === 'string') {
      parts.push(JSON.stringify(value))
    } else if (typeof value === 'number') {
      parts.push(`n${decimalKey(String(value))}`)
    } else if (isRawNumber(value)) {
      parts.push(`n${decimalKey(value.rawJSON)}`)
    } else if (typeof value !== 'object' || value === null) {
      parts.push(String(value))
    } else if (Array.isArray(value)) {
      parts.push('[')
      stack.push(CLOSE_ARRAY)
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push(value[i])
        if (i > 0) stack.push(COMMA)
      }
    } else {
      parts.push('{')
      stack.push(CLOSE_OBJECT)
      const keys = Object.keys(value).sort()
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push((value as Record<string, unknown>)[keys[i]!])
        stack.push(new Literal(`${JSON.stringify(keys[i])}:`))
        if (i > 0) stack.push(COMMA)
      }
    }
  }
  return parts.join('')
}

class Literal {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }
}

const COMMA = new Literal(',')
const CLOSE_ARRAY = new Literal(']')
const CLOSE_OBJECT = new Literal('}')
