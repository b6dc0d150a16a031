import { compileEcma, RegexSyntaxError } from '../regex/ecma.ts'
import { RegexRefused } from '../regex/linear.ts'

// The `format` values checked when format asserts (format_assertion: true, or the 2020-12
// format-assertion vocabulary). Unknown formats are never an error (an annotation only). These regular
// expressions are ours, not the tenant's, and none of them nests quantifiers, so V8 runs them in linear time.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const TIME = /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?([zZ]|([+-])(\d{2}):(\d{2}))$/
// RFC 3339 appendix A: a year is followed by months before days, hours by minutes before seconds
const DURATION =
  /^P(\d+W|(\d+Y(\d+M(\d+D)?)?|\d+M(\d+D)?|\d+D)(T(\d+H(\d+M(\d+S)?)?|\d+M(\d+S)?|\d+S))?|T(\d+H(\d+M(\d+S)?)?|\d+M(\d+S)?|\d+S))$/
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/
const LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/
const JSON_POINTER = /^(\/([^~/]|~[01])*)*$/
const RELATIVE_POINTER = /^(0|[1-9]\d*)(#|(\/([^~/]|~[01])*)*)$/
const EMAIL_LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/
const QUOTED_LOCAL = /^"([\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"$/
const URI_TEMPLATE =
  /^([^{}]|\{[+#./;?&=,!@|]?[A-Za-z0-9_%.]+(:[1-9]\d{0,3}|\*)?(,[A-Za-z0-9_%.]+(:[1-9]\d{0,3}|\*)?)*\})*$/
// RFC 3986: scheme ":" then characters a URI may hold (percent escapes well formed)
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/
const URI_CHARS = /^([A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9a-fA-F]{2})*$/
const IRI_EXCLUDED = /[\s<>"{}|\\^`\x00-\x1f\x7f]/

function leapYear(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
}

function isDate(s: string): boolean {
  const m = DATE.exec(s)
  if (m === null) return false
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const days = [31, leapYear(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
  return mo >= 1 && mo <= 12 && d >= 1 && d <= days[mo - 1]!
}

function isTime(s: string): boolean {
  const m = TIME.exec(s)
  if (m === null) return false
  const [h, mi, sec] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const offH = m[7] === undefined ? 0 : Number(m[7])
  const offM = m[8] === undefined ? 0 : Number(m[8])
  if (h > 23 || mi > 59 || sec > 60 || offH > 23 || offM > 59) return false
  if (sec === 60) {
    // a leap second is 23:59:60 in UTC
    const sign = m[6] === '-' ? 1 : -1
    const utc = (((h * 60 + mi + sign * (offH * 60 + offM)) % 1440) + 1440) % 1440
    return utc === 23 * 60 + 59
  }
  return true
}

function isDateTime(s: string): boolean {
  const t = s.search(/[tT]/)
  return t === 10 && isDate(s.slice(0, 10)) && isTime(s.slice(11))
}

function isIpv6(s: string): boolean {
  if (s.length > 45 || s.includes('%')) return false
  let text = s
  let tail = 0
  const lastColon = s.lastIndexOf(':')
  if (lastColon >= 0 && s.slice(lastColon + 1).includes('.')) {
    if (!IPV4.test(s.slice(lastColon + 1))) return false
    text = `${s.slice(0, lastColon + 1)}0:0`
    tail = 0
  }
  const double = text.indexOf('::')
  if (double !== text.lastIndexOf('::')) return false
  const parts = (p: string) => (p === '' ? [] : p.split(':'))
  if (double < 0) {
    const groups = parts(text)
    return groups.length === 8 + tail && groups.every((g) => HEX_GROUP.test(g))
  }
  const head = parts(text.slice(0, double))
  const rest = parts(text.slice(double + 2))
  return head.length + rest.length <= 7 && [...head, ...rest].every((g) => HEX_GROUP.test(g))
}

function isHostname(s: string): boolean {
  const name = s
  if (name.length === 0 || name.length > 253) return false
  return name
    .split('.')
    .every((label) => (LABEL.test(label) && !/^..--/.test(label.toLowerCase())) || isALabel(label))
}

// "xn--" labels are punycode: allowed when well formed (the idn-hostname tests check more)
function isALabel(label: string): boolean {
  return /^xn--[a-z0-9-]{1,59}$/i.test(label) && LABEL.test(label)
}

function isEmail(s: string): boolean {
  const at = s.lastIndexOf('@')
  if (at <= 0) return false
  const local = s.slice(0, at)
  const domain = s.slice(at + 1)
  if (!EMAIL_LOCAL.test(local) && !QUOTED_LOCAL.test(local)) return false
  if (domain.startsWith('[') && domain.endsWith(']')) {
    const literal = domain.slice(1, -1)
    return literal.startsWith('IPv6:') ? isIpv6(literal.slice(5)) : IPV4.test(literal)
  }
  return isHostname(domain)
}

function isUriReference(s: string): boolean {
  return URI_CHARS.test(s) && !/#.*#/.test(s)
}

function isUri(s: string): boolean {
  if (!SCHEME.test(s) || !isUriReference(s)) return false
  // an authority's host in brackets must be an IPv6 literal
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(s)
  if (authority !== null) {
    const host = authority[1]!.replace(/^.*@/, '')
    if (host.includes('[') && !/^\[[^\]]+\](:\d*)?$/.test(host)) return false
    if (/^\[([^\]]+)\]/.test(host) && !isIpv6(/^\[([^\]]+)\]/.exec(host)![1]!)) return false
    if (!host.includes('[') && /:.*[^\d]/.test(host.replace(/^[^:]*:/, ':'))) return false
  }
  return true
}

function isIri(s: string): boolean {
  return SCHEME.test(s) && isIriReference(s) && isUri(toAscii(s))
}

function isIriReference(s: string): boolean {
  return !IRI_EXCLUDED.test(s) && isUriReference(toAscii(s))
}

// the non-ASCII characters of an IRI percent-encoded, to check it as a URI
function toAscii(s: string): string {
  return s.replace(/[^\x00-\x7f]/gu, (ch) => encodeURIComponent(ch))
}

function isRegex(s: string): boolean {
  try {
    compileEcma(s)
    return true
  } catch (err) {
    // a pattern RE2 cannot run is still an ECMA-262 regular expression
    return err instanceof RegexRefused || !(err instanceof RegexSyntaxError)
  }
}

export const FORMATS: Record<string, (s: string) => boolean> = {
  'date-time': isDateTime,
  date: isDate,
  time: isTime,
  duration: (s) => DURATION.test(s),
  email: isEmail,
  'idn-email': (s) => {
    const at = s.lastIndexOf('@')
    return at > 0 && !/\s/.test(s) && s.indexOf('@') === at && at < s.length - 1
  },
  hostname: isHostname,
  'idn-hostname': (s) =>
    s.length > 0 && !/[\s@/]/.test(s) && s.split('.').every((l) => l.length > 0 && l.length <= 63),
  ipv4: (s) => IPV4.test(s),
  ipv6: isIpv6,
  uri: isUri,
  'uri-reference': isUriReference,
  iri: isIri,
  'iri-reference': isIriReference,
  'uri-template': (s) => URI_TEMPLATE.test(s),
  uuid: (s) => UUID.test(s),
  'json-pointer': (s) => JSON_POINTER.test(s),
  'relative-json-pointer': (s) => RELATIVE_POINTER.test(s),
  regex: isRegex,
}
