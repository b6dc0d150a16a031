// Why a URL failed to parse. The URL API only says "invalid", so this re-reads the input the way the
// WHATWG parser does, just far enough to name the part at fault: in the standard, failure can only come
// from a missing scheme, an unusable base, or the authority (host and port).

export type UrlFailureReason =
  | 'invalid_base'
  | 'missing_scheme'
  | 'opaque_base'
  | 'empty_host'
  | 'invalid_port'
  | 'forbidden_host_code_point'
  | 'invalid_ipv6'
  | 'invalid_ipv4'
  | 'invalid_host'
  | 'invalid'

export interface UrlDiagnosis {
  reason: UrlFailureReason
  message: string
  // which input is at fault when it is not the URL itself
  field?: 'base'
  // UTF-16 code unit offset into the URL input
  position?: number
}

export const SPECIAL_SCHEMES: ReadonlySet<string> = new Set([
  'ftp:',
  'file:',
  'http:',
  'https:',
  'ws:',
  'wss:',
])
const FORBIDDEN_HOST = /[\0\t\n\r #/:<>?@[\\\]^|]/
// forbidden domain code points, less "%": a special host is percent-decoded before it is checked
const FORBIDDEN_DOMAIN = /[\0-\x1f #/:<>?@[\\\]^|\x7f]/

const MESSAGES: Record<UrlFailureReason, string> = {
  invalid_base: 'the base is not a valid absolute URL',
  missing_scheme: 'it has no scheme (like "https:") and no base was given to resolve it against',
  opaque_base:
    'the base has an opaque path (like "mailto:x"), so only a "#fragment" can be resolved against it',
  empty_host: 'the host is empty',
  invalid_port: 'the port is not a number from 0 to 65535',
  forbidden_host_code_point: 'the host contains a code point that is not allowed in a host',
  invalid_ipv6: 'the host is not a valid IPv6 address',
  invalid_ipv4: 'the host ends in a number but is not a valid IPv4 address',
  invalid_host: 'the host is not a valid domain name (IDNA)',
  invalid: 'it is not valid in the WHATWG URL Standard',
}

// The parser trims leading and trailing C0 controls and spaces and drops tabs and newlines first.
function clean(input: string): { text: string; start: number } {
  let start = 0
  let end = input.length
  while (start < end && input.charCodeAt(start) <= 0x20) start++
  while (end > start && input.charCodeAt(end - 1) <= 0x20) end--
  return { text: input.slice(start, end).replace(/[\t\n\r]/g, ''), start }
}

// Maps an offset in the cleaned text back to the caller's input.
function originalOffset(input: string, start: number, cleanOffset: number): number {
  let kept = 0
  for (let i = start; i < input.length; i++) {
    const c = input[i]
    if (c === '\t' || c === '\n' || c === '\r') continue
    if (kept === cleanOffset) return i
    kept++
  }
  return input.length
}

function endsInNumber(host: string): boolean {
  const labels = host.split('.')
  if (labels.at(-1) === '' && labels.length > 1) labels.pop()
  const last = labels.at(-1) ?? ''
  return /^[0-9]+$/.test(last) || /^0x[0-9a-f]*$/i.test(last)
}

// A special host is percent-decoded before its code points are checked: find an escape (or a lone "%",
// which stays as it is) that decodes to a forbidden ASCII code point.
function escapedForbiddenAt(host: string): number {
  for (const m of host.matchAll(/%([0-9A-Fa-f]{2})?/g)) {
    if (m[1] === undefined) return m.index
    const c = String.fromCharCode(Number.parseInt(m[1], 16))
    if (c === '%' || FORBIDDEN_DOMAIN.test(c)) return m.index
  }
  return -1
}

function forbiddenDomainAt(host: string): number {
  const found = [host.search(FORBIDDEN_DOMAIN), escapedForbiddenAt(host)].filter((i) => i >= 0)
  return found.length === 0 ? -1 : Math.min(...found)
}

function hasOpaquePath(url: URL): boolean {
  return !url.href.slice(url.protocol.length).startsWith('/')
}

interface Found {
  reason: UrlFailureReason
  at?: number
}

// Host and port of an authority that starts at offset `from` of the cleaned text.
function inspectAuthority(text: string, from: number, special: boolean, file: boolean): Found {
  const end = text.slice(from).search(special ? /[/\\?#]/ : /[/?#]/)
  const authority = end < 0 ? text.slice(from) : text.slice(from, from + end)
  const at = file ? -1 : authority.lastIndexOf('@')
  const hostStart = from + at + 1
  const hostPort = authority.slice(at + 1)
  const close = hostPort.startsWith('[') ? hostPort.indexOf(']') : -1
  // inside brackets a ":" is part of the address, so an unclosed bracket makes the rest one host
  if (hostPort.startsWith('[') && close < 0) return { reason: 'invalid_ipv6', at: hostStart }
  const colon = file ? -1 : hostPort.indexOf(':', Math.max(close, 0))
  const host = colon < 0 ? hostPort : hostPort.slice(0, colon)
  if (host === '' && ((special && !file) || at >= 0 || colon >= 0))
    return { reason: 'empty_host', at: hostStart }
  if (colon >= 0) {
    const port = hostPort.slice(colon + 1)
    const nonDigit = port.search(/\D/)
    if (nonDigit >= 0) return { reason: 'invalid_port', at: hostStart + colon + 1 + nonDigit }
    if (port !== '' && Number(port) > 65535) return { reason: 'invalid_port', at: hostStart + colon + 1 }
  }
  if (host.startsWith('[')) return { reason: 'invalid_ipv6', at: hostStart }
  const forbidden = special ? forbiddenDomainAt(host) : host.search(FORBIDDEN_HOST)
  if (forbidden >= 0) return { reason: 'forbidden_host_code_point', at: hostStart + forbidden }
  if (special && endsInNumber(host)) return { reason: 'invalid_ipv4', at: hostStart }
  if (host !== '') return { reason: 'invalid_host', at: hostStart }
  return { reason: 'invalid' }
}

function locate(text: string, baseUrl: URL | undefined): Found | UrlDiagnosis {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(text)?.[0].toLowerCase()
  if (scheme === undefined && baseUrl === undefined) return { reason: 'missing_scheme', at: 0 }
  if (scheme === undefined && baseUrl && hasOpaquePath(baseUrl) && !text.startsWith('#')) {
    return { reason: 'opaque_base', field: 'base', message: MESSAGES.opaque_base }
  }
  const protocol = scheme ?? baseUrl!.protocol
  const special = SPECIAL_SCHEMES.has(protocol)
  const file = protocol === 'file:'
  const from = scheme?.length ?? 0
  // A special scheme other than file skips any run of slashes and backslashes before the authority,
  // even none, unless the input is relative to a base of the same scheme; file needs two, the others "//".
  const relative = scheme === undefined || baseUrl?.protocol === protocol
  const slashes = /^[/\\]*/.exec(text.slice(from))![0].length
  const hasAuthority = special ? slashes >= (file || relative ? 2 : 0) : text.startsWith('//', from)
  if (!hasAuthority) return { reason: 'invalid' }
  const skip = special && !file ? slashes : 2
  return inspectAuthority(text, from + skip, special, file)
}

export function diagnose(input: string, base?: string): UrlDiagnosis {
  let baseUrl: URL | undefined
  if (base !== undefined) {
    const parsed = URL.parse(base)
    if (parsed === null) return { reason: 'invalid_base', message: MESSAGES.invalid_base, field: 'base' }
    baseUrl = parsed
  }
  const { text, start } = clean(input)
  const found = locate(text, baseUrl)
  if ('message' in found) return found
  const diagnosis: UrlDiagnosis = { reason: found.reason, message: MESSAGES[found.reason] }
  if (found.at !== undefined) diagnosis.position = originalOffset(input, start, found.at)
  return diagnosis
}
