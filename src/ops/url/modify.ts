import { describeUrl, toUrl, type UrlParts } from './parse.ts'
import { parseUrlencoded, type QueryPairs, type QueryParams, serializePairs, toPairs } from './query.ts'

// The settable components, in the order they are applied: href replaces everything, protocol comes
// before the port (so a default port is dropped consistently), host before hostname and port (so the
// more specific one wins).
export const SETTABLE = [
  'href',
  'protocol',
  'username',
  'password',
  'host',
  'hostname',
  'port',
  'pathname',
  'search',
  'hash',
] as const
export type Settable = (typeof SETTABLE)[number]

export interface QueryOps {
  delete?: string[]
  set?: QueryParams
  append?: QueryParams
}

export interface ModifyUrlInput {
  url: string
  set?: Partial<Record<Settable, string | number>>
  query?: QueryOps
  sort_query?: boolean
  strip_hash?: boolean
}

// Each name of `set` takes the place of its first occurrence (or goes last when absent), like
// URLSearchParams.set, except that an array of values sets them all there.
function setParams(pairs: QueryPairs, params: QueryParams): QueryPairs {
  const groups = new Map<string, string[]>()
  for (const [name, value] of toPairs(params)) {
    const values = groups.get(name)
    if (values) values.push(value)
    else groups.set(name, [value])
  }
  // names of params whose array was empty still clear their old values
  if (!Array.isArray(params))
    for (const name of Object.keys(params)) if (!groups.has(name)) groups.set(name, [])
  const out: QueryPairs = []
  const placed = new Set<string>()
  for (const [name, value] of pairs) {
    const values = groups.get(name)
    if (values === undefined) out.push([name, value])
    else if (!placed.has(name)) {
      placed.add(name)
      for (const v of values) out.push([name, v])
    }
  }
  for (const [name, values] of groups) if (!placed.has(name)) for (const v of values) out.push([name, v])
  return out
}

export function applyQueryOps(pairs: QueryPairs, ops: QueryOps, sort: boolean): QueryPairs {
  let out = pairs
  if (ops.delete) {
    const names = new Set(ops.delete)
    out = out.filter(([name]) => !names.has(name))
  }
  if (ops.set) out = setParams(out, ops.set)
  if (ops.append) out = [...out, ...toPairs(ops.append)]
  // Array.prototype.sort is stable and compares UTF-16 code units, as URLSearchParams.sort does
  if (sort) out = [...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return out
}

// WHATWG setter semantics, as in the WPT setters tests: a value a setter cannot use is ignored and the
// component keeps its old value. Only a whole new href must be a valid URL.
function applySet(url: URL, set: NonNullable<ModifyUrlInput['set']>): URL {
  let current = url
  for (const component of SETTABLE) {
    const value = set[component]
    if (value === undefined) continue
    const text = String(value)
    if (component === 'href') current = toUrl('set.href', text)
    else current[component] = text
  }
  return current
}

export function modifyUrl(input: ModifyUrlInput): UrlParts {
  let url = toUrl('url', input.url)
  if (input.set) url = applySet(url, input.set)
  const ops = input.query ?? {}
  const sort = input.sort_query === true
  if (ops.delete || ops.set || ops.append || sort) {
    url.search = serializePairs(applyQueryOps(parseUrlencoded(url.search.slice(1)), ops, sort))
  }
  if (input.strip_hash === true) url.hash = ''
  return describeUrl(url)
}
