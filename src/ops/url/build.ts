import { AppError } from '../../errors.ts'
import { diagnose, SPECIAL_SCHEMES } from './diagnose.ts'
import { describeUrl, type UrlParts } from './parse.ts'
import { parseUrlencoded, type QueryPairs, type QueryParams, serializePairs, toPairs } from './query.ts'

export interface BuildUrlInput {
  protocol: string
  hostname?: string
  username?: string
  password?: string
  port?: string | number
  pathname?: string
  search?: string
  hash?: string
  query?: QueryParams
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/

// Unlike modify, which keeps the WHATWG setters' habit of ignoring what they cannot use, build refuses
// any part that would not end up in the URL as given.
function refuse(field: string, input: string, reason: string, message: string, position?: number): AppError {
  const details: Record<string, unknown> = { field, input, reason }
  if (position !== undefined) details.position = position
  return new AppError('ERR_INVALID_URL', message, details)
}

// Characters that would end the host, or start credentials or a port, inside an authority.
function structuralCharAt(hostname: string): number {
  const close = hostname.startsWith('[') ? hostname.indexOf(']') : -1
  const structural = hostname.search(/[/?#@\\]/)
  const colon = hostname.indexOf(':', Math.max(close, 0))
  const found = [structural, colon].filter((i) => i >= 0)
  return found.length === 0 ? -1 : Math.min(...found)
}

function withHost(scheme: string, hostname: string): URL {
  const at = structuralCharAt(hostname)
  if (at >= 0) {
    throw refuse(
      'hostname',
      hostname,
      'forbidden_host_code_point',
      'The hostname must be a bare host: put the port in `port`, credentials in `username` and `password`, ' +
        'and the rest in `pathname`, `search` and `hash`',
      at,
    )
  }
  const prefix = `${scheme}://`
  const text = `${prefix}${hostname}/`
  const url = URL.parse(text)
  if (url !== null) return url
  const found = diagnose(text)
  const position =
    found.position === undefined
      ? undefined
      : Math.min(Math.max(found.position - prefix.length, 0), hostname.length)
  throw refuse('hostname', hostname, found.reason, `Invalid hostname: ${found.message}`, position)
}

// Without a host, a pathname that does not start with "/" is an opaque path (as in mailto:); the
// pathname setter cannot write one, so it goes into the text parsed, with "?" and "#" kept as data.
function skeleton(scheme: string, input: BuildUrlInput): { url: URL; pathDone: boolean } {
  if (input.hostname !== undefined) return { url: withHost(scheme, input.hostname), pathDone: false }
  if (SPECIAL_SCHEMES.has(`${scheme}:`) && scheme !== 'file') {
    throw refuse('hostname', '', 'empty_host', `A ${scheme}: URL needs a hostname`)
  }
  const pathname = input.pathname ?? ''
  if (scheme === 'file' || pathname.startsWith('/')) return { url: new URL(`${scheme}:/`), pathDone: false }
  const url = URL.parse(`${scheme}:${pathname.replaceAll('?', '%3F').replaceAll('#', '%23')}`)
  if (url === null) throw refuse('pathname', pathname, 'invalid', 'The pathname cannot form a URL')
  return { url, pathDone: true }
}

function cannotHaveCredentialsOrPort(url: URL): boolean {
  return url.host === '' || url.protocol === 'file:'
}

function setCredentials(url: URL, input: BuildUrlInput): void {
  for (const field of ['username', 'password'] as const) {
    const value = input[field]
    if (value === undefined || value === '') continue
    if (cannotHaveCredentialsOrPort(url)) {
      throw refuse(
        field,
        value,
        'credentials_not_allowed',
        'A URL without a host, or a file: URL, has no credentials',
      )
    }
    url[field] = value
  }
}

function setPort(url: URL, port: string | number | undefined): void {
  if (port === undefined || port === '') return
  const text = String(port)
  if (!/^[0-9]+$/.test(text) || Number(text) > 65535) {
    throw refuse('port', text, 'invalid_port', 'The port must be a number from 0 to 65535')
  }
  if (cannotHaveCredentialsOrPort(url)) {
    throw refuse('port', text, 'port_not_allowed', 'A URL without a host, or a file: URL, has no port')
  }
  url.port = text
}

export function buildUrl(input: BuildUrlInput): UrlParts {
  const scheme = input.protocol.endsWith(':') ? input.protocol.slice(0, -1) : input.protocol
  if (!SCHEME.test(scheme)) {
    const bad = scheme === '' ? 0 : Math.max(scheme.search(/^[^A-Za-z]|[^A-Za-z0-9+.-]/), 0)
    throw refuse(
      'protocol',
      input.protocol,
      'invalid_scheme',
      'The protocol must be a scheme: a letter, then letters, digits, "+", "-" or "."',
      bad,
    )
  }
  const { url, pathDone } = skeleton(scheme.toLowerCase(), input)
  setCredentials(url, input)
  setPort(url, input.port)
  if (!pathDone) url.pathname = input.pathname ?? ''
  if (input.search !== undefined) url.search = input.search
  if (input.query !== undefined) {
    const pairs: QueryPairs = [...parseUrlencoded(url.search.slice(1)), ...toPairs(input.query)]
    url.search = serializePairs(pairs)
  }
  if (input.hash !== undefined) url.hash = input.hash
  return describeUrl(url)
}
