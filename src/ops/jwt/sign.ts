import { SignJWT } from 'jose'
import { AppError } from '../../errors.ts'
import type { ByteEncoding } from '../encoding.ts'
import { type JwsAlgorithm, requireJwsAlgorithm } from './algorithms.ts'
import { exceedsDepth, MAX_JSON_DEPTH } from './decode.ts'
import { type JwsKey, type KeyMaterial, keyFits, privateKey, secretKey } from './keys.ts'
import { parseDuration } from './time.ts'

export interface SignInput {
  payload: Record<string, unknown>
  algorithm: string
  secret?: string
  secret_encoding?: ByteEncoding
  private_key?: KeyMaterial
  header?: Record<string, unknown>
  expires_in?: number | string
  not_before?: number | string
  issuer?: string
  audience?: string | string[]
  subject?: string
}

// Header parameters Anvil sets itself or cannot honour in a compact JWT.
const RESERVED_HEADER = ['b64', 'crit'] as const
// Each option and the payload claim it writes; setting both is ambiguous, so it is refused.
const CLAIM_OPTIONS = [
  ['expires_in', 'exp'],
  ['not_before', 'nbf'],
  ['issuer', 'iss'],
  ['audience', 'aud'],
  ['subject', 'sub'],
] as const

function invalidField(path: string, message: string): AppError {
  return new AppError('ERR_VALIDATION', undefined, { issues: [{ path, message }] })
}

function badKey(field: string, message: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError('ERR_INVALID_KEY_MATERIAL', message, { field, ...extra })
}

function signingKey(input: SignInput, alg: JwsAlgorithm): JwsKey {
  if (alg.kind === 'secret') {
    if (input.private_key !== undefined)
      throw badKey('private_key', `${alg.name} signs with "secret", not "private_key"`)
    if (input.secret === undefined) throw badKey('secret', `${alg.name} needs "secret"`)
    const key = secretKey(input.secret, input.secret_encoding ?? 'utf8')
    const min = alg.min_secret_bytes!
    // RFC 7518 §3.2: a key shorter than the hash output MUST NOT be used with HMAC JWS algorithms.
    if (key.length < min) {
      throw badKey('secret', `${alg.name} needs a secret of at least ${min} bytes (RFC 7518 §3.2)`, {
        min_bytes: min,
      })
    }
    return { kind: 'secret', key }
  }
  if (input.secret !== undefined) throw badKey('secret', `${alg.name} signs with "private_key", not "secret"`)
  if (input.private_key === undefined) throw badKey('private_key', `${alg.name} needs "private_key"`)
  const key = privateKey(input.private_key)
  if (!keyFits(alg, key)) {
    throw badKey(
      'private_key',
      `This ${key.kind}${key.curve ? ` (${key.curve})` : ''} key cannot sign ${alg.name}`,
    )
  }
  return key
}

function protectedHeader(input: SignInput, alg: JwsAlgorithm): Record<string, unknown> {
  if (input.header && Object.hasOwn(input.header, 'alg') && input.header.alg !== alg.name) {
    throw invalidField('header.alg', `must be absent or equal to algorithm (${alg.name})`)
  }
  for (const name of RESERVED_HEADER) {
    if (input.header && Object.hasOwn(input.header, name))
      throw invalidField(`header.${name}`, 'is not supported')
  }
  // alg first, as is customary; the user's typ/kid/... next; alg cannot be overridden (checked above)
  const header = { alg: alg.name, typ: 'JWT', ...input.header }
  if (exceedsDepth(header)) throw invalidField('header', `nests deeper than ${MAX_JSON_DEPTH} levels`)
  return header
}

function claims(input: SignInput, now: number): Record<string, unknown> {
  if (exceedsDepth(input.payload)) throw invalidField('payload', `nests deeper than ${MAX_JSON_DEPTH} levels`)
  for (const [option, claim] of CLAIM_OPTIONS) {
    if (input[option] !== undefined && Object.hasOwn(input.payload, claim)) {
      throw invalidField(option, `conflicts with payload.${claim}; set one or the other`)
    }
  }
  // spreading defines own properties, so a "__proto__" claim stays a claim and never a prototype
  const out: Record<string, unknown> = { ...input.payload }
  if (!Object.hasOwn(out, 'iat')) out.iat = now
  if (input.expires_in !== undefined) out.exp = now + parseDuration(input.expires_in, 'expires_in')
  if (input.not_before !== undefined) out.nbf = now + parseDuration(input.not_before, 'not_before')
  if (input.issuer !== undefined) out.iss = input.issuer
  if (input.audience !== undefined) out.aud = input.audience
  if (input.subject !== undefined) out.sub = input.subject
  return out
}

// A compact JWS over the claims. "iat" is the signing time unless the payload sets it; expires_in and
// not_before count from the signing time.
export async function signJwt(input: SignInput): Promise<{ token: string }> {
  const alg = requireJwsAlgorithm(input.algorithm, 'algorithm')
  const key = signingKey(input, alg)
  const header = protectedHeader(input, alg)
  const now = Math.floor(Date.now() / 1000)
  const token = await new SignJWT(claims(input, now))
    .setProtectedHeader(header as { alg: string })
    .sign(key.key)
  return { token }
}
