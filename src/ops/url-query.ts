// Query strings as application/x-www-form-urlencoded, exactly as URLSearchParams reads and writes them.

export type QueryScalar = string | number | boolean | null
export type QueryPairInput = [string, QueryScalar]
export type QueryParams = QueryPairInput[] | { [name: string]: QueryScalar | QueryScalar[] }
export type QueryPairs = [string, string][]
// Built on a null prototype, so a name like "__proto__" or "constructor" is an ordinary own key.
export type QueryObject = { [name: string]: string | string[] }

export interface QueryIssue {
  path: (string | number)[]
  message: string
}

const MAX_ISSUES = 20

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function isScalar(value: unknown): value is QueryScalar {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  )
}

const SCALAR = 'a string, a finite number, a boolean or null'

// The shape check lives here rather than in a zod record: zod drops "__proto__" keys, which are data here.
export function queryParamsIssues(params: unknown): QueryIssue[] {
  const issues: QueryIssue[] = []
  if (Array.isArray(params)) {
    params.forEach((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2) {
        issues.push({ path: [i], message: 'Expected a [name, value] pair' })
      } else {
        if (typeof pair[0] !== 'string') issues.push({ path: [i, 0], message: 'The name must be a string' })
        if (!isScalar(pair[1])) issues.push({ path: [i, 1], message: `The value must be ${SCALAR}` })
      }
    })
  } else if (isPlainObject(params)) {
    for (const name of Object.keys(params)) {
      const value = params[name]
      const values = Array.isArray(value) ? value : [value]
      values.forEach((v, i) => {
        if (!isScalar(v)) {
          const path = Array.isArray(value) ? [name, i] : [name]
          issues.push({ path, message: `The value must be ${SCALAR}, or an array of those` })
        }
      })
    }
  } else {
    issues.push({
      path: [],
      message: 'Expected an object of names to values, or an array of [name, value] pairs',
    })
  }
  return issues.slice(0, MAX_ISSUES)
}

// null is sent as an empty value ("name="): URLSearchParams has no form for a bare name.
function scalarText(value: QueryScalar): string {
  return value === null ? '' : String(value)
}

// Object keys come in JavaScript property order (integer-like names first); pairs keep any order.
export function toPairs(params: QueryParams): QueryPairs {
  if (Array.isArray(params)) return params.map(([name, value]) => [name, scalarText(value)])
  const pairs: QueryPairs = []
  for (const name of Object.keys(params)) {
    const value = params[name]!
    for (const v of Array.isArray(value) ? value : [value]) pairs.push([name, scalarText(v)])
  }
  return pairs
}

export function pairsToObject(pairs: QueryPairs): QueryObject {
  const object: QueryObject = Object.create(null)
  for (const [name, value] of pairs) {
    const prior = object[name]
    if (prior === undefined) object[name] = value
    else if (typeof prior === 'string') object[name] = [prior, value]
    else prior.push(value)
  }
  return object
}

export function serializePairs(pairs: QueryPairs): string {
  return new URLSearchParams(pairs).toString()
}

export interface QueryParseResult {
  pairs: QueryPairs
  object: QueryObject
}

export function parseQuery(input: { query: string }): QueryParseResult {
  // The URLSearchParams constructor drops one leading "?", as the search getter would have added it.
  const pairs = [...new URLSearchParams(input.query)] as QueryPairs
  return { pairs, object: pairsToObject(pairs) }
}

export function buildQuery(input: { params: QueryParams }): { query: string } {
  return { query: serializePairs(toPairs(input.params)) }
}
