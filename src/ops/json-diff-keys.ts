import type { Delta } from 'jsondiffpatch'
import { AppError } from '../errors.ts'
import { isJsonObject, type Json, type JsonObject, setOwn } from './json-diff-values.ts'

// Every step of a diff recurses once per nesting level. At this bound a diff needs under a fifth of
// the main thread's default stack (worker threads get more), so deep input is refused up front
// instead of overflowing somewhere inside.
export const MAX_DEPTH = 512

// jsondiffpatch reads and writes properties on plain objects, so a key that names an
// Object.prototype member ("__proto__", "constructor", "toString", ...) is lost or crashes it.
// Such documents are diffed under a reversible renaming: those keys, and any key that already
// starts with the escape character, get the escape character prepended.
const RESERVED = new Set(Object.getOwnPropertyNames(Object.prototype))
const ESCAPE = '\u0000'

export interface DocumentShape {
  reservedKeys: boolean
}

// Iterative, so that an arbitrarily deep document is refused instead of overflowing the stack.
export function inspectDocument(value: Json, field: string): DocumentShape {
  let reservedKeys = false
  const stack: [Json, number][] = [[value, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (typeof node !== 'object' || node === null) continue
    if (depth >= MAX_DEPTH) {
      throw new AppError('ERR_VALIDATION', `\`${field}\` is nested deeper than ${MAX_DEPTH} levels.`, {
        issues: [{ path: field, message: `nesting deeper than ${MAX_DEPTH} levels is not supported` }],
      })
    }
    if (Array.isArray(node)) {
      for (const item of node) stack.push([item, depth + 1])
    } else {
      for (const key of Object.keys(node)) {
        if (RESERVED.has(key)) reservedKeys = true
        stack.push([node[key]!, depth + 1])
      }
    }
  }
  return { reservedKeys }
}

export function encodeKey(key: string): string {
  return RESERVED.has(key) || key.startsWith(ESCAPE) ? ESCAPE + key : key
}

function decodeKey(key: string): string {
  return key.startsWith(ESCAPE) ? key.slice(1) : key
}

function mapKeys(value: Json, rename: (key: string) => string): Json {
  if (Array.isArray(value)) {
    const items: Json[] = []
    for (const item of value) items.push(mapKeys(item, rename))
    return items
  }
  if (!isJsonObject(value)) return value
  const out: JsonObject = {}
  for (const key of Object.keys(value)) setOwn(out, rename(key), mapKeys(value[key]!, rename))
  return out
}

export function encodeDocument(value: Json): Json {
  return mapKeys(value, encodeKey)
}

function decodeLeaf(leaf: unknown[]): unknown[] {
  return leaf.map((item, i) => (i === 0 || leaf.length === 2 ? mapKeys(item as Json, decodeKey) : item))
}

// Object-delta keys and the document values carried in leaves are renamed back; array-delta keys
// are indices and markers, never document keys.
export function decodeDelta(delta: Delta): Delta {
  if (delta === undefined) return delta
  if (Array.isArray(delta)) return decodeLeaf(delta) as Delta
  const out: Record<string, unknown> = {}
  const isArray = (delta as { _t?: unknown })._t === 'a'
  for (const [key, child] of Object.entries(delta)) {
    if (isArray && key === '_t') out[key] = child
    else setOwn(out as JsonObject, isArray ? key : decodeKey(key), decodeDelta(child as Delta) as Json)
  }
  return out as Delta
}
