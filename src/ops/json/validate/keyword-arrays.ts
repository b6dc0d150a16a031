import { jsonEqual } from '../value.ts'
import type { Check, KeywordCompiler, Node, Site } from './compile.ts'
import type { Context, Evaluated } from './context.ts'
import { canonicalKey } from './keyword-canonical.ts'
import { count } from './keyword-values.ts'

// Keywords on arrays.

function schemaList(site: Site, keyword: string, value: unknown): Node[] {
  if (!Array.isArray(value)) site.invalid(keyword, 'an array of schemas')
  return (value as unknown[]).map((item, i) => site.sub(item, keyword, i))
}

// Items from `from` on, against one schema.
function rest(node: Node, from: number, ev: Evaluated | undefined, v: unknown[], cx: Context): boolean {
  let valid = true
  for (let i = from; i < v.length; i++) {
    cx.enter(i)
    if (!node.check(v[i], cx, undefined)) valid = false
    cx.leave()
  }
  if (ev !== undefined) ev.allItems = true
  return valid
}

function tuple(nodes: Node[]): Check {
  return (v, cx, ev) => {
    if (!Array.isArray(v)) return true
    let valid = true
    const n = Math.min(nodes.length, v.length)
    for (let i = 0; i < n; i++) {
      cx.enter(i)
      if (!nodes[i]!.check(v[i], cx, undefined)) valid = false
      cx.leave()
    }
    if (ev !== undefined && n > ev.items) ev.items = n
    return valid
  }
}

const prefixItems: KeywordCompiler = (site, value) => tuple(schemaList(site, 'prefixItems', value))

const items: KeywordCompiler = (site, value) => {
  if (Array.isArray(value)) {
    // up to 2019-09, an array of schemas is a tuple; 2020-12 has prefixItems for that
    if (site.dialect === '2020-12') site.invalid('items', 'a schema (a tuple is prefixItems)')
    return tuple(schemaList(site, 'items', value))
  }
  const node = site.sub(value, 'items')
  const prefix = site.dialect === '2020-12' && Array.isArray(site.schema['prefixItems'])
  const from = prefix ? (site.schema['prefixItems'] as unknown[]).length : 0
  return (v, cx, ev) => !Array.isArray(v) || rest(node, from, ev, v, cx)
}

// up to 2019-09: the items past a tuple `items`
const additionalItems: KeywordCompiler = (site, value) => {
  const tupleItems = site.schema['items']
  if (!Array.isArray(tupleItems)) return undefined
  const node = site.sub(value, 'additionalItems')
  return (v, cx, ev) => !Array.isArray(v) || rest(node, tupleItems.length, ev, v, cx)
}

const unevaluatedItems: KeywordCompiler = (site, value) => {
  const node = site.sub(value, 'unevaluatedItems')
  return (v, cx, ev) => {
    if (!Array.isArray(v)) return true
    let valid = true
    for (let i = 0; i < v.length; i++) {
      if (ev?.hasItem(i)) continue
      cx.enter(i)
      if (!node.check(v[i], cx, undefined)) valid = false
      cx.leave()
    }
    if (ev !== undefined) ev.allItems = true
    return valid
  }
}

const contains: KeywordCompiler = (site, value) => {
  const node = site.sub(value, 'contains')
  const modern = site.dialect === '2020-12' || site.dialect === '2019-09'
  const min =
    modern && site.schema['minContains'] !== undefined
      ? count(site, 'minContains', site.schema['minContains'])
      : 1
  const max =
    modern && site.schema['maxContains'] !== undefined
      ? count(site, 'maxContains', site.schema['maxContains'])
      : Number.POSITIVE_INFINITY
  // 2020-12: the items contains matched count as evaluated
  const annotates = site.dialect === '2020-12'
  const place = site.place
  return (v, cx, ev) => {
    if (!Array.isArray(v)) return true
    let matched = 0
    for (let i = 0; i < v.length; i++) {
      const mark = cx.mark()
      cx.enter(i)
      const ok = node.check(v[i], cx, undefined)
      cx.leave()
      cx.restore(mark)
      if (ok) {
        matched++
        if (annotates) ev?.item(i)
      }
    }
    if (matched < min) {
      return cx.fail(place, 'contains', `the array has ${matched} matching items, fewer than ${min}`)
    }
    if (matched > max) {
      return cx.fail(place, 'maxContains', `the array has ${matched} matching items, more than ${max}`)
    }
    return true
  }
}

// minContains and maxContains are read by contains; alone they assert nothing
const byContains: KeywordCompiler = (site, value) => {
  count(site, 'minContains', value)
  return undefined
}

function lengthBound(
  keyword: string,
  holds: (length: number, n: number) => boolean,
  words: string,
): KeywordCompiler {
  return (site, value) => {
    const n = count(site, keyword, value)
    const place = site.place
    return (v, cx) =>
      !Array.isArray(v) ||
      holds(v.length, n) ||
      cx.fail(place, keyword, `the array has ${v.length} items, ${words} ${n}`)
  }
}

// up to this many items, uniqueItems compares pairs (at most 28 comparisons) instead of keying each item
const PAIRWISE_UP_TO = 8

const uniqueItems: KeywordCompiler = (site, value) => {
  if (typeof value !== 'boolean') site.invalid('uniqueItems', 'a boolean')
  if (value === false) return undefined
  const place = site.place
  return (v, cx) => {
    if (!Array.isArray(v) || v.length < 2) return true
    // a short array pair by pair: no maps and no keys to build (a few tags, a point's coordinates)
    if (v.length <= PAIRWISE_UP_TO) {
      for (let j = 1; j < v.length; j++) {
        for (let i = 0; i < j; i++) {
          if (jsonEqual(v[i], v[j])) return cx.fail(place, 'uniqueItems', `items ${i} and ${j} are equal`)
        }
      }
      return true
    }
    // strings are their own keys; other values their canonical text (kept apart: no string collides)
    const strings = new Map<string, number>()
    const others = new Map<string, number>()
    for (let i = 0; i < v.length; i++) {
      const item = v[i]
      const seen = typeof item === 'string' ? strings : others
      const key = typeof item === 'string' ? item : canonicalKey(item)
      const first = seen.get(key)
      if (first !== undefined) return cx.fail(place, 'uniqueItems', `items ${first} and ${i} are equal`)
      seen.set(key, i)
    }
    return true
  }
}

export const ARRAY_KEYWORDS: Record<string, KeywordCompiler> = {
  prefixItems,
  items,
  additionalItems,
  unevaluatedItems,
  contains,
  minContains: byContains,
  maxContains: byContains,
  minItems: lengthBound('minItems', (l, n) => l >= n, 'fewer than'),
  maxItems: lengthBound('maxItems', (l, n) => l <= n, 'more than'),
  uniqueItems,
}
