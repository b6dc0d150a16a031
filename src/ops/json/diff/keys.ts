import type { Delta } from 'jsondiffpatch'
import { AppError } from '../../../errors.ts'
import { isRawNumber } from '../number.ts'
import { PROTOTYPE_NAMES, parsedShape } from '../shape.ts'
import { MAX_DEPTH } from './types.ts'
import { isJsonObject, type Json, type JsonObject, setOwn } from './values.ts'

export { MAX_DEPTH }

// jsondiffpatch reads and writes properties on plain objects, so a key that names an
// Object.prototype member ("__proto__", "constructor", "toString", ...) is lost or crashes it.
// Such documents are diffed under a reversible renaming: those keys, and any key that already
// starts with the escape character, get the escape character prepended.
const ESCAPE = '\u0000'

export interface DocumentShape {
  reservedKeys: boolean
}

// Iterative, so that an arbitrarily deep document is refused instead of overflowing the stack; only
// containers are stacked (with their depth beside them, not in a tuple each), and members are read with
// for-in (V8's enum cache, no array of keys per object), as this walks every value of a possibly 10 MB
// document. A document whose body text parseJsonExact's pass already read (../shape.ts) is not walked when
// that settles it: nothing deep enough to refuse and no key that may need the escape.
export function inspectDocument(value: Json, field: string): DocumentShape {
  const parsed = parsedShape(value)
  if (parsed !== undefined && parsed.deepest < MAX_DEPTH && !parsed.prototypeKeys)
    return { reservedKeys: false }
  let reservedKeys = false
  const nodes: (Json[] | JsonObject)[] = []
  const depths: number[] = []
  const tooDeep = () =>
    new AppError('ERR_VALIDATION', `\`${field}\` is nested deeper than ${MAX_DEPTH} levels.`, {
      issues: [{ path: field, message: `nesting deeper than ${MAX_DEPTH} levels is not supported` }],
    })
  if (isContainer(value)) {
    nodes.push(value)
    depths.push(0)
  }
  while (nodes.length > 0) {
    const node = nodes.pop()!
    const depth = depths.pop()! + 1
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item = node[i]!
        if (!isContainer(item)) continue
        if (depth >= MAX_DEPTH) throw tooDeep()
        nodes.push(item)
        depths.push(depth)
      }
    } else {
      for (const key in node) {
        if (PROTOTYPE_NAMES.has(key)) reservedKeys = true
        const item = node[key]!
        if (!isContainer(item)) continue
        if (depth >= MAX_DEPTH) throw tooDeep()
        nodes.push(item)
        depths.push(depth)
      }
    }
  }
  return { reservedKeys }
}

function isContainer(value: Json): value is Json[] | JsonObject {
  return typeof value === 'object' && value !== null && !isRawNumber(value)
}

export function encodeKey(key: string): string {
  return PROTOTYPE_NAMES.has(key) || key.startsWith(ESCAPE) ? ESCAPE + key : key
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
