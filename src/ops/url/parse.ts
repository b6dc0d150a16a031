import { AppError } from '../../errors.ts'
import { diagnose } from './diagnose.ts'
import { pairsToObject, parseUrlencoded, type QueryObject, type QueryPairs } from './query.ts'

export interface UrlParts {
  href: string
  origin: string
  protocol: string
  username: string
  password: string
  host: string
  hostname: string
  port: string
  pathname: string
  search: string
  hash: string
  query: QueryPairs
  query_object: QueryObject
}

export interface ParseUrlInput {
  url: string
  base?: string | null
}

// Long enough to recognise the input, short enough not to echo a whole request body back.
const ECHO_LIMIT = 2048

function echo(text: string): { text: string; truncated: boolean } {
  if (text.length <= ECHO_LIMIT) return { text, truncated: false }
  // never cut a surrogate pair in half
  const cut = /[\ud800-\udbff]/.test(text[ECHO_LIMIT - 1]!) ? ECHO_LIMIT - 1 : ECHO_LIMIT
  return { text: text.slice(0, cut), truncated: true }
}

// ERR_INVALID_URL for `input` (resolved against `base`), named by the request field it came from.
export function invalidUrl(field: string, input: string, base?: string): AppError {
  const found = diagnose(input, base)
  const shown = echo(input)
  const details: Record<string, unknown> = {
    field: found.field === 'base' ? 'base' : field,
    input: shown.text,
  }
  if (shown.truncated) details.input_truncated = true
  if (base !== undefined) details.base = echo(base).text
  details.reason = found.reason
  if (found.position !== undefined) details.position = found.position
  const against = base === undefined ? '' : ' against its base'
  return new AppError('ERR_INVALID_URL', `Invalid URL${against}: ${found.message}`, details)
}

export function describeUrl(url: URL): UrlParts {
  const query = parseUrlencoded(url.search.slice(1))
  return {
    href: url.href,
    origin: url.origin,
    protocol: url.protocol,
    username: url.username,
    password: url.password,
    host: url.host,
    hostname: url.hostname,
    port: url.port,
    pathname: url.pathname,
    search: url.search,
    hash: url.hash,
    query,
    query_object: pairsToObject(query),
  }
}

// A JSON null base means "no base", as in the WPT data; passing null to URL would stringify it.
export function toUrl(field: string, input: string, base?: string | null): URL {
  const url = base == null ? URL.parse(input) : URL.parse(input, base)
  if (url === null) throw invalidUrl(field, input, base ?? undefined)
  return url
}

export function parseUrl(input: ParseUrlInput): UrlParts {
  return describeUrl(toUrl('url', input.url, input.base))
}
