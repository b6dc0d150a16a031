import { decodeKey, wtf8ToString } from './text.ts'

// Finds duplicate keys per object while tokenizing. Keys are compared decoded (so "a" and "\u0061" are the
// same key), as WTF-8 bytes in one arena shared by all open objects, innermost last; most objects are
// small, so a new key is compared with its siblings in place (no string is made). Past SET_AFTER keys an
// object switches to a Set of keys.
const SET_AFTER = 16

// Typed-array stacks with explicit tops: this runs once per key and per object of the document.
export interface KeyScopes {
  arena: Buffer
  length: number
  // decoded byte range of each remembered key
  starts: Int32Array
  ends: Int32Array
  count: number
  // first key entry of each open object
  base: Int32Array
  depth: number
  // objects past SET_AFTER keys, by depth
  sets: Map<number, Set<string>>
  // where the key being read starts in the arena (its opening quote)
  keyStart: number
}

export function createKeyScopes(): KeyScopes {
  return {
    arena: Buffer.allocUnsafe(4096),
    length: 0,
    starts: new Int32Array(256),
    ends: new Int32Array(256),
    count: 0,
    base: new Int32Array(64),
    depth: 0,
    sets: new Map(),
    keyStart: 0,
  }
}

function doubled(array: Int32Array): Int32Array {
  const bigger = new Int32Array(array.length * 2)
  bigger.set(array)
  return bigger
}

export function openScope(s: KeyScopes): void {
  if (s.depth === s.base.length) s.base = doubled(s.base)
  s.base[s.depth++] = s.count
}

export function closeScope(s: KeyScopes): void {
  s.count = s.base[--s.depth]!
  s.length = s.count > 0 ? s.ends[s.count - 1]! : 0
  if (s.sets.size > 0) s.sets.delete(s.depth)
}

export function beginKey(s: KeyScopes): void {
  s.keyStart = s.length
}

// The key's raw bytes as they stream in, quotes and escapes included.
export function keyBytes(s: KeyScopes, src: Uint8Array, start: number, end: number): void {
  const n = end - start
  if (s.length + n > s.arena.length) {
    const bigger = Buffer.allocUnsafe(Math.max(s.length + n, s.arena.length * 2))
    s.arena.copy(bigger, 0, 0, s.length)
    s.arena = bigger
  }
  const arena = s.arena
  let o = s.length
  for (let k = start; k < end; k++) arena[o++] = src[k]!
  s.length = o
}

function sameBytes(arena: Buffer, a: number, b: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (arena[a + k] !== arena[b + k]) return false
  return true
}

function remember(s: KeyScopes, start: number, end: number): void {
  if (s.count === s.starts.length) {
    s.starts = doubled(s.starts)
    s.ends = doubled(s.ends)
  }
  s.starts[s.count] = start
  s.ends[s.count++] = end
}

// A key of an object past SET_AFTER keys lives in its Set only; latin1 maps each byte to one character.
function seenInSet(s: KeyScopes, set: Set<string>, start: number, end: number): boolean {
  const key = s.arena.toString('latin1', start, end)
  s.length = s.keyStart
  if (set.has(key)) return true
  set.add(key)
  return false
}

function seenInPlace(s: KeyScopes, start: number, end: number): boolean {
  const top = s.depth - 1
  const from = s.base[top]!
  const n = end - start
  const arena = s.arena
  for (let k = from; k < s.count; k++) {
    const other = s.starts[k]!
    if (s.ends[k]! - other === n && sameBytes(arena, other, start, n)) {
      s.length = s.keyStart
      return true
    }
  }
  if (s.count - from + 1 < SET_AFTER) {
    remember(s, start, end)
    s.length = end
    return false
  }
  const keys = new Set<string>([arena.toString('latin1', start, end)])
  for (let k = from; k < s.count; k++) keys.add(arena.toString('latin1', s.starts[k]!, s.ends[k]!))
  s.sets.set(top, keys)
  s.count = from
  s.length = from > 0 ? s.ends[from - 1]! : 0
  return false
}

// Called when the key is complete: the decoded key when the innermost object already had it, else null.
export function endKey(s: KeyScopes, escaped: boolean): string | null {
  const start = s.keyStart + 1
  const end = escaped ? decodeKey(s.arena, start, s.length - 1) : s.length - 1
  const set = s.sets.size > 0 ? s.sets.get(s.depth - 1) : undefined
  const seen = set === undefined ? seenInPlace(s, start, end) : seenInSet(s, set, start, end)
  return seen ? wtf8ToString(s.arena, start, end) : null
}
