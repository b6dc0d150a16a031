// What parseJsonExact's pass over a body's text (exact-numbers.ts) learns on the way, kept beside the
// values JSON.parse made, so that json/diff need not walk each document again to learn it
// (inspectDocument, diff/keys.ts: ~2 ms of a 10k-item diff's ~22 ms of thread CPU). Kept in a WeakMap, so a
// fact goes when its document does; a value without one (parsed some other way) is simply walked.

export interface ParsedShape {
  // an upper bound of the depth of the value's deepest container, the value itself at 0
  deepest: number
  // some key in the text may name an Object.prototype member: one that does ("constructor",
  // "__proto__" ...), or one written with an escape, which is not decoded to find out
  prototypeKeys: boolean
}

// The keys a plain object cannot hold as ordinary properties without care (diff/keys.ts escapes them).
export const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype))

// a cheap first look before a key's text is cut out and looked up: its length and its first character
const NAMES = [...PROTOTYPE_NAMES]
const SHORTEST = Math.min(...NAMES.map((name) => name.length))
const LONGEST = Math.max(...NAMES.map((name) => name.length))
const FIRST = new Uint8Array(128)
for (const name of NAMES) FIRST[name.charCodeAt(0)] = 1

// Whether the key text[start, end) (quotes excluded, no escape in it) names an Object.prototype member.
export function namesPrototypeMember(text: string, start: number, end: number): boolean {
  const length = end - start
  if (length < SHORTEST || length > LONGEST || FIRST[text.charCodeAt(start)] !== 1) return false
  return PROTOTYPE_NAMES.has(text.slice(start, end))
}

const shapes = new WeakMap<object, ParsedShape>()
// a body has a handful of members (json/diff's left, right and options): only the first this many are
// noted (a body with thousands of members is not walked for them)
const MEMBERS_NOTED = 8

// The members of a parsed body (json/diff's `left` and `right`), given what the pass found in the whole
// text: one level down, its deepest container is a bound of each member's.
export function noteMemberShapes(root: unknown, deepest: number, prototypeKeys: boolean): void {
  if (typeof root !== 'object' || root === null || Array.isArray(root)) return
  let members = 0
  for (const key in root) {
    if (++members > MEMBERS_NOTED) return
    const member = (root as Record<string, unknown>)[key]
    if (typeof member === 'object' && member !== null)
      shapes.set(member, { deepest: deepest - 1, prototypeKeys })
  }
}

export function parsedShape(value: unknown): ParsedShape | undefined {
  return typeof value === 'object' && value !== null ? shapes.get(value) : undefined
}
