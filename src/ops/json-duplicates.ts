import { ESCAPED, keyOf, type TokenList } from './json-tokens.ts'

// Finds duplicate keys per object while tokenizing. Most objects are small, so their keys are compared
// in place in the text (no string is made); past SET_AFTER keys an object switches to a Set of keys.
const SET_AFTER = 16

// Typed-array stacks with explicit tops: this runs once per key and per object of the document.
export interface KeyScopes {
  // key tokens of every open object, innermost last
  keys: Int32Array
  keyCount: number
  // where each open object's keys start in `keys`
  base: Int32Array
  depth: number
  // objects past SET_AFTER keys, by depth
  sets: Map<number, Set<string>>
}

export function createKeyScopes(): KeyScopes {
  return { keys: new Int32Array(64), keyCount: 0, base: new Int32Array(64), depth: 0, sets: new Map() }
}

function doubled(array: Int32Array): Int32Array {
  const bigger = new Int32Array(array.length * 2)
  bigger.set(array)
  return bigger
}

export function openScope(scopes: KeyScopes): void {
  if (scopes.depth === scopes.base.length) scopes.base = doubled(scopes.base)
  scopes.base[scopes.depth++] = scopes.keyCount
}

export function closeScope(scopes: KeyScopes): void {
  scopes.keyCount = scopes.base[--scopes.depth]!
  if (scopes.sets.size > 0) scopes.sets.delete(scopes.depth)
}

function sameKey(text: string, tokens: TokenList, a: number, b: number): boolean {
  const aStart = tokens.start[a]!
  const bStart = tokens.start[b]!
  const length = tokens.end[a]! - aStart
  if ((tokens.kind[a]! | tokens.kind[b]!) & ESCAPED) return keyOf(text, tokens, a) === keyOf(text, tokens, b)
  if (tokens.end[b]! - bStart !== length) return false
  for (let i = 1; i < length - 1; i++) {
    if (text.charCodeAt(aStart + i) !== text.charCodeAt(bStart + i)) return false
  }
  return true
}

// Records the key token `index` in the innermost object; true when that object already had the key.
export function isDuplicateKey(scopes: KeyScopes, text: string, tokens: TokenList, index: number): boolean {
  const top = scopes.depth - 1
  const set = scopes.sets.size > 0 ? scopes.sets.get(top) : undefined
  if (set) {
    const key = keyOf(text, tokens, index)
    if (set.has(key)) return true
    set.add(key)
    return false
  }
  const from = scopes.base[top]!
  const count = scopes.keyCount
  for (let k = from; k < count; k++) {
    if (sameKey(text, tokens, scopes.keys[k]!, index)) return true
  }
  if (count - from + 1 === SET_AFTER) {
    const keys = new Set<string>([keyOf(text, tokens, index)])
    for (let k = from; k < count; k++) keys.add(keyOf(text, tokens, scopes.keys[k]!))
    scopes.sets.set(top, keys)
    scopes.keyCount = from
    return false
  }
  if (count === scopes.keys.length) scopes.keys = doubled(scopes.keys)
  scopes.keys[scopes.keyCount++] = index
  return false
}
