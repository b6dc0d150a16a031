import { errors, type JWTVerifyOptions, jwtVerify } from 'jose'
import { AppError } from '../../errors.ts'
import type { ByteEncoding } from '../encoding.ts'
import { findJwsAlgorithm, type JwsAlgorithm, requireJwsAlgorithm } from './algorithms.ts'
import { decodeJwt } from './decode.ts'
import { type JwsKey, jwksKeys, type KeyMaterial, keyFits, publicKey, secretKey } from './keys.ts'
import { parseDuration, type ReferenceTime, referenceSeconds } from './time.ts'
import type { VerifyReasonCode } from './types.ts'

export type { VerifyReasonCode }

export interface VerifyInput {
  token: string
  secret?: string
  secret_encoding?: ByteEncoding
  public_key?: KeyMaterial
  jwks?: { keys: unknown[] }
  algorithms?: string[]
  issuer?: string | string[]
  audience?: string | string[]
  subject?: string
  max_token_age?: number | string
  clock_tolerance_seconds?: number
  required_claims?: string[]
  at?: ReferenceTime
}

export interface VerifyReason {
  code: VerifyReasonCode
  message: string
  claim?: string
}

export type VerifyResult =
  | { valid: true; header: Record<string, unknown>; payload: Record<string, unknown> }
  | { valid: false; reason: VerifyReason }

// Budget: a token without "kid" is tried against every JWKS key of its algorithm, each an RSA or EC
// verification; past this many candidates the request is refused (422 ERR_COMPUTE_LIMIT) rather than
// tried in part, which could answer "signature_invalid" for a token that a later key verifies.
export const MAX_KEYS_WITHOUT_KID = 4

// What the op's cost model (src/exec/costs.ts) asks: a PEM/JWK public key or a JWKS with other than oct keys means
// public-key verification, which never runs on the event loop.
export function verifyIsHeavy(input: VerifyInput): boolean {
  if (input.public_key !== undefined) return true
  const keys = input.jwks?.keys
  if (!Array.isArray(keys)) return false
  return keys.some((k) => typeof k !== 'object' || k === null || (k as { kty?: unknown }).kty !== 'oct')
}

function invalid(code: VerifyReasonCode, message: string, claim?: string): VerifyResult {
  return { valid: false, reason: claim === undefined ? { code, message } : { code, message, claim } }
}

function keySources(input: VerifyInput): JwsKey[] {
  const given = (['secret', 'public_key', 'jwks'] as const).filter((f) => input[f] !== undefined)
  if (given.length !== 1) {
    throw new AppError('ERR_VALIDATION', 'Send exactly one of secret, public_key or jwks', {
      issues: [
        { path: given.length === 0 ? '' : given.join(','), message: 'exactly one key source is required' },
      ],
    })
  }
  if (input.secret !== undefined) {
    return [{ kind: 'secret', key: secretKey(input.secret, input.secret_encoding ?? 'utf8') }]
  }
  if (input.public_key !== undefined) return [publicKey(input.public_key)]
  return jwksKeys(input.jwks!)
}

const CLAIM_REASONS: Record<string, [VerifyReasonCode, string]> = {
  nbf: ['not_yet_valid', 'The token is not valid yet ("nbf" is in the future)'],
  iat: ['issued_in_future', '"iat" is in the future'],
}

// jose's outcomes as values (Unkey style): only the caller's own inputs ever become a 4xx.
function fromJoseError(err: unknown): VerifyResult {
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return invalid('signature_invalid', 'The signature does not match the key')
  }
  if (err instanceof errors.JWTExpired) {
    return err.claim === 'iat'
      ? invalid('too_old', 'The token is older than max_token_age', 'iat')
      : invalid('expired', 'The token has expired ("exp" is in the past)', 'exp')
  }
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.reason === 'missing')
      return invalid('missing_claim', `The "${err.claim}" claim is missing`, err.claim)
    if (err.reason === 'invalid')
      return invalid('invalid_claim', `The "${err.claim}" claim has the wrong type`, err.claim)
    const special = CLAIM_REASONS[err.claim]
    if (special) return invalid(special[0], special[1], err.claim)
    return invalid('claim_mismatch', `The "${err.claim}" claim does not match the expected value`, err.claim)
  }
  if (err instanceof errors.JWTInvalid) {
    return invalid('invalid_payload', 'The payload is not a JWT claims set (a JSON object)')
  }
  if (err instanceof errors.JOSENotSupported) {
    return invalid('unsupported_header', 'The token needs a JWS extension ("crit") that is not supported')
  }
  if (err instanceof errors.JOSEError) return invalid('invalid_header', 'The token header is not acceptable')
  throw err
}

function verifyOptions(input: VerifyInput, alg: string): JWTVerifyOptions {
  const options: JWTVerifyOptions = {
    algorithms: [alg],
    currentDate: new Date(referenceSeconds(input.at) * 1000),
    clockTolerance: input.clock_tolerance_seconds ?? 0,
  }
  if (input.issuer !== undefined) options.issuer = input.issuer
  if (input.audience !== undefined) options.audience = input.audience
  if (input.subject !== undefined) options.subject = input.subject
  if (input.required_claims !== undefined) options.requiredClaims = input.required_claims
  if (input.max_token_age !== undefined) {
    const age = parseDuration(input.max_token_age, 'max_token_age')
    if (age < 0) {
      throw new AppError('ERR_VALIDATION', undefined, {
        issues: [{ path: 'max_token_age', message: 'must not be negative' }],
      })
    }
    options.maxTokenAge = age
  }
  return options
}

function allowList(input: VerifyInput): Set<string> | undefined {
  return (
    input.algorithms &&
    new Set(input.algorithms.map((a, i) => requireJwsAlgorithm(a, `algorithms.${i}`).name))
  )
}

async function tryKeys(
  token: string,
  candidates: JwsKey[],
  options: JWTVerifyOptions,
  alg: JwsAlgorithm,
): Promise<VerifyResult> {
  let last: VerifyResult = invalid('signature_invalid', 'The signature does not match the key')
  for (const candidate of candidates) {
    try {
      const { payload, protectedHeader } = await jwtVerify(token, candidate.key, options)
      return { valid: true, header: protectedHeader as Record<string, unknown>, payload }
    } catch (err) {
      if (err instanceof errors.JOSEError) last = fromJoseError(err)
      else last = invalid('key_algorithm_mismatch', `The key cannot be used with ${alg.name}`)
      if (last.valid || last.reason.code !== 'signature_invalid') return last
    }
  }
  return last
}

// Malformed input (token, keys, options) is a 400; a well-formed token that fails is {valid: false}.
export async function verifyJwt(input: VerifyInput): Promise<VerifyResult> {
  const decoded = decodeJwt({ token: input.token })
  const algName = decoded.header.alg as string
  if (algName.toLowerCase() === 'none') {
    return invalid('alg_none', 'alg "none" means the token is unsigned; it is never valid')
  }
  const keys = keySources(input)
  const allowed = allowList(input)
  const options = verifyOptions(input, algName)
  const alg = findJwsAlgorithm(algName)
  if (!alg) return invalid('algorithm_not_allowed', `alg "${algName}" is not supported`)
  if (allowed && !allowed.has(alg.name)) {
    return invalid('algorithm_not_allowed', `alg "${algName}" is not in the algorithms allow-list`)
  }
  const fitting = keys.filter((k) => keyFits(alg, k))
  if (input.jwks === undefined) {
    if (fitting.length === 0) {
      return invalid(
        'key_algorithm_mismatch',
        `The token says ${alg.name}, which this key type cannot verify`,
      )
    }
    return tryKeys(input.token, fitting, options, alg)
  }
  const kid = decoded.header.kid
  const candidates = typeof kid === 'string' ? fitting.filter((k) => k.kid === kid) : fitting
  if (candidates.length === 0) {
    const which = typeof kid === 'string' ? `with kid "${kid}" ` : ''
    return invalid('no_matching_key', `The JWKS holds no ${alg.name} key ${which}for this token`)
  }
  if (typeof kid !== 'string' && candidates.length > MAX_KEYS_WITHOUT_KID) {
    throw new AppError(
      'ERR_COMPUTE_LIMIT',
      `The token has no "kid" and the JWKS holds ${candidates.length} ${alg.name} keys; at most ${MAX_KEYS_WITHOUT_KID} are tried without one. Give the token a kid, or send only the keys that may have signed it.`,
      { reason: 'jwks_keys_without_kid', limit: MAX_KEYS_WITHOUT_KID, keys: candidates.length },
    )
  }
  return tryKeys(input.token, candidates, options, alg)
}
