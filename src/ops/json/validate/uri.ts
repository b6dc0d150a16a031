// URI references of `$id`, `$ref` and `$schema`, resolved per RFC 3986 by the WHATWG URL parser (which
// agrees with it on the absolute URIs schemas use: http(s), urn, tag, file). A schema with no `$id` gets
// DEFAULT_BASE, so that relative references still resolve; its locations are written relative to it.

export const DEFAULT_BASE = 'anvil:/schema'

export class BadUri extends Error {}

// The absolute URI `ref` names from `base`.
export function resolveUri(ref: string, base: string): string {
  try {
    return new URL(ref, base).href
  } catch {
    throw new BadUri(`"${ref}" is not a URI reference that resolves against "${base}"`)
  }
}

// [the URI without its fragment, the fragment decoded (undefined when there is none)]
export function splitFragment(uri: string): [string, string | undefined] {
  const hash = uri.indexOf('#')
  if (hash < 0) return [uri, undefined]
  return [uri.slice(0, hash), safeDecode(uri.slice(hash + 1))]
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

// The reference tokens of a JSON Pointer ("" is the whole document), or undefined when it is not one.
export function pointerTokens(pointer: string): string[] | undefined {
  if (pointer === '') return []
  if (!pointer.startsWith('/')) return undefined
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'))
}

export function escapeToken(token: string | number): string {
  return typeof token === 'number' ? String(token) : token.replaceAll('~', '~0').replaceAll('/', '~1')
}

// A location for the output: relative ("#/...") when the resource is the schema without an `$id`.
export function writtenUri(base: string, pointer: string): string {
  const fragment = `#${encodeURI(pointer).replaceAll('#', '%23')}`
  return base === DEFAULT_BASE ? fragment : `${base}${fragment}`
}
