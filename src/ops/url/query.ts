// Query strings as application/x-www-form-urlencoded: written as URLSearchParams writes them, read by the
// WHATWG URL standard's parser (§5.1) itself, which the runtime's URLSearchParams does not quite follow.

import { queryParamsIssues } from './schema.ts'
import type { QueryParams, QueryScalar } from './types.ts'

export type { QueryParams }
export { queryParamsIssues }

export type QueryPairs = [string, string][]
// Built on a null prototype, so a name like "__proto__" or "constructor" is an ordinary own key.
export type QueryObject = { [name: string]: string | string[] }

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

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true })

function hexDigit(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30
  const lower = byte | 0x20
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1
}

// "+" is a space, then percent-decode to bytes (a "%" without two hex digits stays a "%"), then UTF-8
// decode without BOM, each invalid sequence becoming U+FFFD. Node's URLSearchParams gets the non-ASCII
// characters of a value wrong when the value also holds an invalid escape (Æ%FF → "��", not "Æ�").
function decodeComponent(text: string): string {
  const spaced = text.includes('+') ? text.replaceAll('+', ' ') : text
  if (!spaced.includes('%')) return spaced.toWellFormed()
  const bytes = Buffer.from(spaced, 'utf8')
  let out = 0
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!
    if (byte === 0x25 && i + 2 < bytes.length) {
      const high = hexDigit(bytes[i + 1]!)
      const low = high < 0 ? -1 : hexDigit(bytes[i + 2]!)
      if (low >= 0) {
        bytes[out++] = high * 16 + low
        i += 2
        continue
      }
    }
    bytes[out++] = byte
  }
  return utf8.decode(bytes.subarray(0, out))
}

// The application/x-www-form-urlencoded parser of the URL standard (§5.1), on a string (its lone
// surrogates read as U+FFFD, as a USVString is): split on "&", skip empty pieces, split each at its
// first "=" (none: the value is ""), then decode name and value.
export function parseUrlencoded(input: string): QueryPairs {
  const pairs: QueryPairs = []
  for (const piece of input.split('&')) {
    if (piece === '') continue
    const eq = piece.indexOf('=')
    const name = eq < 0 ? piece : piece.slice(0, eq)
    const value = eq < 0 ? '' : piece.slice(eq + 1)
    pairs.push([decodeComponent(name), decodeComponent(value)])
  }
  return pairs
}

export interface QueryParseResult {
  pairs: QueryPairs
  object: QueryObject
}

export function parseQuery(input: { query: string }): QueryParseResult {
  // One leading "?" is dropped, as the URLSearchParams constructor drops it (the search getter adds it).
  const query = input.query.startsWith('?') ? input.query.slice(1) : input.query
  const pairs = parseUrlencoded(query)
  return { pairs, object: pairsToObject(pairs) }
}

export function buildQuery(input: { params: QueryParams }): { query: string } {
  return { query: serializePairs(toPairs(input.params)) }
}
