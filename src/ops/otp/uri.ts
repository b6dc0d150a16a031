import { AppError } from '../../errors.ts'
import { secretBytes, secretText } from './secret.ts'
import {
  MAX_COUNTER,
  OTP_ALGORITHMS,
  OTP_DIGITS,
  OTP_PERIOD,
  OTP_TYPES,
  type OtpAlgorithm,
  type OtpType,
} from './types.ts'

// otpauth:// URIs, Google Authenticator's Key Uri Format (github.com/google/google-authenticator/wiki/
// Key-Uri-Format): otpauth://TYPE/LABEL?PARAMETERS, the label "issuer:account" (each percent-encoded,
// neither holding a colon), the parameters secret (Base32, unpadded), issuer, algorithm, digits, and
// period (TOTP) or counter (HOTP).

export interface OtpUri {
  type: OtpType
  secret: string
  account: string
  issuer?: string | undefined
  algorithm: OtpAlgorithm
  digits: number
  period?: number | undefined
  counter?: number | undefined
}

// RFC 3986 percent-encoding of everything but the unreserved characters (encodeURIComponent also leaves
// !'()* alone, which RFC 3986 reserves)
function encode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
}

// Every parameter is written, the defaults too: apps that assume other defaults then read the same key.
export function buildOtpUri(key: OtpUri): string {
  const label =
    key.issuer === undefined ? encode(key.account) : `${encode(key.issuer)}:${encode(key.account)}`
  const params = [`secret=${key.secret}`]
  if (key.issuer !== undefined) params.push(`issuer=${encode(key.issuer)}`)
  params.push(`algorithm=${key.algorithm}`, `digits=${key.digits}`)
  params.push(key.type === 'totp' ? `period=${key.period}` : `counter=${key.counter}`)
  return `otpauth://${key.type}/${label}?${params.join('&')}`
}

export interface ParsedOtpUri extends OtpUri {
  label: string
  warnings: string[]
}

type UriPart = 'scheme' | 'type' | 'label' | 'parameter'

function invalid(part: UriPart, position: number, reason: string, parameter?: string): AppError {
  const details: Record<string, unknown> = { part, position, reason }
  if (parameter !== undefined) details.parameter = parameter
  return new AppError('ERR_INVALID_OTP_URI', `Position ${position}: ${reason}`, details)
}

function decode(text: string, part: UriPart, position: number, parameter?: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    throw invalid(part, position, 'malformed percent-encoding (not UTF-8)', parameter)
  }
}

const KNOWN = new Set(['secret', 'issuer', 'algorithm', 'digits', 'period', 'counter'])

function integer(value: string, name: string, at: number, min: number, max: number): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw invalid('parameter', at, `${name} must be an integer from ${min} to ${max}`, name)
  }
  return Number(value)
}

// Reads one back, strictly where the format says MUST (the scheme, the type, a secret, a counter for HOTP)
// and with warnings where it says should (an issuer parameter that differs from the label's prefix) or is
// silent (parameters it does not define, which some apps add: image, color).
export function parseOtpUri(uri: string): ParsedOtpUri {
  const scheme = 'otpauth://'
  if (uri.slice(0, scheme.length).toLowerCase() !== scheme)
    throw invalid('scheme', 0, 'expected "otpauth://"')
  const slash = uri.indexOf('/', scheme.length)
  if (slash < 0) throw invalid('type', uri.length, 'expected "/" and a label after the type')
  const type = uri.slice(scheme.length, slash).toLowerCase()
  if (!(OTP_TYPES as readonly string[]).includes(type)) {
    throw invalid('type', scheme.length, 'the type is "totp" or "hotp"')
  }
  const query = uri.indexOf('?', slash)
  const labelText = uri.slice(slash + 1, query < 0 ? uri.length : query)
  const label = decode(labelText, 'label', slash + 1)
  const colon = label.indexOf(':')
  const prefix = colon < 0 ? undefined : label.slice(0, colon)
  const account = (colon < 0 ? label : label.slice(colon + 1)).replace(/^ +/, '')
  if (account.length === 0) throw invalid('label', slash + 1, 'the label names no account')
  if (account.includes(':')) throw invalid('label', slash + 1, 'the account name holds a colon')

  const params = new Map<string, { value: string; at: number }>()
  const warnings: string[] = []
  let at = query + 1
  for (const pair of query < 0 ? [] : uri.slice(query + 1).split('&')) {
    const eq = pair.indexOf('=')
    const name = decode(eq < 0 ? pair : pair.slice(0, eq), 'parameter', at).toLowerCase()
    const value = decode(eq < 0 ? '' : pair.slice(eq + 1), 'parameter', at, name)
    if (pair.length > 0) {
      if (params.has(name)) throw invalid('parameter', at, `${name} is given twice`, name)
      if (!KNOWN.has(name)) warnings.push(`unknown parameter "${name}" ignored`)
      params.set(name, { value, at })
    }
    at += pair.length + 1
  }
  const get = (name: string) => params.get(name)
  const secret = get('secret')
  if (!secret || secret.value.length === 0)
    throw invalid('parameter', uri.length, 'secret is required', 'secret')
  let bytes: Buffer
  try {
    bytes = secretBytes(secret.value)
  } catch {
    throw invalid('parameter', secret.at, 'secret is not valid Base32 (RFC 4648)', 'secret')
  }
  const issuerParam = get('issuer')?.value
  if (issuerParam !== undefined && prefix !== undefined && issuerParam !== prefix) {
    warnings.push(
      `the issuer parameter "${issuerParam}" differs from the label's issuer "${prefix}"; the parameter is used`,
    )
  }
  const algorithmParam = get('algorithm')
  const algorithm = (algorithmParam?.value.toUpperCase() ?? 'SHA1') as OtpAlgorithm
  if (!OTP_ALGORITHMS.includes(algorithm)) {
    throw invalid('parameter', algorithmParam!.at, 'algorithm is SHA1, SHA256 or SHA512', 'algorithm')
  }
  const digitsParam = get('digits')
  const digits = digitsParam
    ? integer(digitsParam.value, 'digits', digitsParam.at, OTP_DIGITS.min, OTP_DIGITS.max)
    : OTP_DIGITS.default
  const result: ParsedOtpUri = {
    type: type as OtpType,
    label,
    issuer: issuerParam ?? prefix,
    account,
    secret: secretText(bytes),
    algorithm,
    digits,
    warnings,
  }
  const periodParam = get('period')
  const counterParam = get('counter')
  if (type === 'totp') {
    if (counterParam) warnings.push('counter applies to HOTP only: ignored')
    result.period = periodParam
      ? integer(periodParam.value, 'period', periodParam.at, OTP_PERIOD.min, OTP_PERIOD.max)
      : OTP_PERIOD.default
  } else {
    if (periodParam) warnings.push('period applies to TOTP only: ignored')
    if (!counterParam) throw invalid('parameter', uri.length, 'counter is required for HOTP', 'counter')
    result.counter = integer(counterParam.value, 'counter', counterParam.at, 0, MAX_COUNTER)
  }
  return result
}
