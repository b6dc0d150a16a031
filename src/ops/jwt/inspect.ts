import { findJwsAlgorithm } from './algorithms.ts'
import { type DecodedJwt, decodeJwt } from './decode.ts'
import { isoOf, type ReferenceTime, referenceSeconds, relativeTo } from './time.ts'
import type { InspectWarningCode } from './types.ts'

const YEAR_SECONDS = 365 * 86400
const TIME_CLAIMS = ['iat', 'nbf', 'exp'] as const
const KEY_HEADERS = ['jku', 'x5u', 'jwk', 'x5c'] as const

export interface ClaimTime {
  value: number
  iso: string | null
  relative: string
}

export interface Warning {
  code: InspectWarningCode
  message: string
}

export interface InspectResult extends DecodedJwt {
  at: string
  algorithm: string
  key_id: string | null
  type: string | null
  claims: { iat: ClaimTime | null; nbf: ClaimTime | null; exp: ClaimTime | null }
  expired: boolean
  not_yet_valid: boolean
  expires_in_seconds: number | null
  warnings: Warning[]
}

function headerWarnings(header: Record<string, unknown>, alg: string): Warning[] {
  const out: Warning[] = []
  if (alg.toLowerCase() === 'none') {
    out.push({ code: 'alg_none', message: 'alg is "none": the token is unsigned and must never be trusted' })
  } else if (!findJwsAlgorithm(alg)) {
    out.push({ code: 'unsupported_algorithm', message: `alg "${alg}" is not one Anvil can verify` })
  } else if (alg.startsWith('HS')) {
    out.push({
      code: 'symmetric_algorithm',
      message: 'HMAC (shared secret): every party able to verify the token can also mint one',
    })
  }
  if (alg.toLowerCase() !== 'none' && typeof header.kid !== 'string') {
    out.push({ code: 'missing_kid', message: 'No "kid" header: verifiers cannot pick a key during rotation' })
  }
  for (const name of KEY_HEADERS) {
    if (Object.hasOwn(header, name)) {
      out.push({
        code: 'key_in_header',
        message: `The header carries "${name}": never fetch or trust a key named by the token itself`,
      })
    }
  }
  return out
}

type Times = Record<(typeof TIME_CLAIMS)[number], number | null>

function claimTimes(payload: Record<string, unknown>, warnings: Warning[]): Times {
  const times: Times = { iat: null, nbf: null, exp: null }
  for (const claim of TIME_CLAIMS) {
    if (!Object.hasOwn(payload, claim)) continue
    const value = payload[claim]
    if (typeof value === 'number' && Number.isFinite(value)) times[claim] = value
    else {
      warnings.push({
        code: 'invalid_numeric_date',
        message: `"${claim}" is not a NumericDate (seconds since the epoch)`,
      })
    }
  }
  return times
}

function timeWarnings(t: Times, now: number, warnings: Warning[]): void {
  const { iat, nbf, exp } = t
  if (exp === null) {
    warnings.push({ code: 'missing_exp', message: 'No "exp" claim: the token never expires' })
  } else {
    const start = iat ?? nbf ?? now
    if (exp - start > YEAR_SECONDS) {
      warnings.push({ code: 'long_lifetime', message: 'The token lives longer than one year' })
    }
    if ((nbf !== null && exp <= nbf) || (iat !== null && exp <= iat)) {
      warnings.push({
        code: 'inconsistent_times',
        message: '"exp" is not after "nbf"/"iat": it can never be valid',
      })
    }
  }
  if (iat !== null && iat > now) {
    warnings.push({ code: 'iat_in_future', message: '"iat" is later than the reference time' })
  }
}

function describeTime(value: number | null, now: number): ClaimTime | null {
  return value === null ? null : { value, iso: isoOf(value), relative: relativeTo(value, now) }
}

// Decode plus the facts a person debugging a token wants; still never verifies the signature.
export function inspectJwt(params: { token: string; at?: ReferenceTime }): InspectResult {
  const now = referenceSeconds(params.at)
  const decoded = decodeJwt({ token: params.token })
  const alg = decoded.header.alg as string
  const warnings = headerWarnings(decoded.header, alg)
  let times: Times = { iat: null, nbf: null, exp: null }
  if (decoded.payload_format === 'json') {
    times = claimTimes(decoded.payload as Record<string, unknown>, warnings)
    timeWarnings(times, now, warnings)
  } else {
    warnings.push({
      code: 'payload_not_json',
      message: 'The payload is not a JSON object, so not a JWT claims set',
    })
  }
  const { exp, nbf } = times
  return {
    ...decoded,
    at: new Date(now * 1000).toISOString(),
    algorithm: alg,
    key_id: typeof decoded.header.kid === 'string' ? decoded.header.kid : null,
    type: typeof decoded.header.typ === 'string' ? decoded.header.typ : null,
    claims: {
      iat: describeTime(times.iat, now),
      nbf: describeTime(nbf, now),
      exp: describeTime(exp, now),
    },
    // the same comparisons jose makes (exp <= now is expired; nbf > now is not yet valid)
    expired: exp !== null && exp <= now,
    not_yet_valid: nbf !== null && nbf > now,
    expires_in_seconds: exp === null ? null : exp - now,
    warnings,
  }
}
