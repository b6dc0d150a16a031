import { isObject, type JsonObject } from './value.ts'

// RFC 6901 JSON Pointers. Failures are returned as reasons; the caller knows which operation to blame.

export type Tokens = string[]

// "" is the whole document; otherwise "/" then tokens where "~1" is "/" and "~0" is "~".
export function parsePointer(pointer: string): Tokens | { reason: string } {
  if (pointer === '') return []
  if (pointer[0] !== '/') return { reason: 'a JSON Pointer is "" or starts with "/"' }
  const tokens = pointer.slice(1).split('/')
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (!token.includes('~')) continue
    if (/~(?![01])/.test(token)) return { reason: `"~" must be followed by 0 or 1 (in "${token}")` }
    tokens[i] = token.replaceAll('~1', '/').replaceAll('~0', '~')
  }
  return tokens
}

export function formatPointer(tokens: Tokens): string {
  return tokens.map((t) => '/' + t.replaceAll('~', '~0').replaceAll('/', '~1')).join('')
}

const INDEX = /^(0|[1-9][0-9]*)$/

// An array index token: digits without leading zeros; "-" (one past the end) only where `end` allows it.
// -1 when the token is not an index at all.
export function arrayIndex(token: string, length: number, end: boolean): number {
  if (token === '-') return end ? length : -1
  if (!INDEX.test(token)) return -1
  const index = Number(token)
  return Number.isSafeInteger(index) ? index : -1
}

// The value a token designates inside a container, reading own properties only.
export function child(container: unknown, token: string): { found: boolean; value?: unknown } {
  if (Array.isArray(container)) {
    const index = arrayIndex(token, container.length, false)
    return index >= 0 && index < container.length
      ? { found: true, value: container[index] }
      : { found: false }
  }
  if (isObject(container) && Object.hasOwn(container, token)) {
    return { found: true, value: (container as JsonObject)[token] }
  }
  return { found: false }
}

// Walks the first `count` tokens; the position where the walk stopped, or -1 when every step existed.
export function walk(root: unknown, tokens: Tokens, count: number): { value: unknown; missingAt: number } {
  let value = root
  for (let i = 0; i < count; i++) {
    const next = child(value, tokens[i]!)
    if (!next.found) return { value: undefined, missingAt: i }
    value = next.value
  }
  return { value, missingAt: -1 }
}
