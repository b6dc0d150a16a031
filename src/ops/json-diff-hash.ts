import { createHash } from 'node:crypto'
import { isJsonObject, type Json } from './json-diff-values.ts'

// Hashes decide only which array items are paired up; paired items are still diffed in full, so a
// collision can make a delta less tidy but never wrong.
const INLINE_LIMIT = 64

// A Merkle-style canonical hash: key order does not matter, and each container is hashed once per
// diff (cached by identity) instead of once per nesting level above it.
function contentHash(value: Json, cache: WeakMap<object, string>): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value)
  const cached = cache.get(value)
  if (cached !== undefined) return cached
  // plain loops rather than map(): one stack frame per nesting level
  let text: string
  if (Array.isArray(value)) {
    text = '['
    for (let i = 0; i < value.length; i++) text += (i > 0 ? ',' : '') + contentHash(value[i]!, cache)
    text += ']'
  } else {
    text = '{'
    const keys = Object.keys(value).sort()
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!
      text += (i > 0 ? ',' : '') + JSON.stringify(key) + ':' + contentHash(value[key]!, cache)
    }
    text += '}'
  }
  const hash = text.length <= INLINE_LIMIT ? text : '#' + createHash('sha256').update(text).digest('base64')
  cache.set(value, hash)
  return hash
}

// jsondiffpatch calls this for array items that are objects, arrays or null. With an array key,
// items are matched by that field (then diffed field by field); items without it, by content.
export function createObjectHash(arrayKey: string | undefined): (item: object) => string {
  const cache = new WeakMap<object, string>()
  return function objectHash(item) {
    const value = item as Json
    if (arrayKey !== undefined && isJsonObject(value) && Object.hasOwn(value, arrayKey)) {
      return 'k' + contentHash(value[arrayKey]!, cache)
    }
    return 'v' + contentHash(value, cache)
  }
}
