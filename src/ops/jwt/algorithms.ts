import { AppError } from '../../errors.ts'

// The JWS algorithms Anvil signs and verifies. "none" is deliberately absent: it is never signed and
// never valid. Each entry names the only key type that may be used with it (RFC 8725 §3.1: the key,
// not the token, decides the algorithm family).
export type KeyKind = 'secret' | 'rsa' | 'ec' | 'ed25519'

export interface JwsAlgorithm {
  name: string
  kind: KeyKind
  // HMAC: RFC 7518 §3.2 minimum key size in bytes (the hash output size)
  min_secret_bytes?: number
  // ECDSA: the node:crypto name of the one curve the algorithm is defined on
  curve?: string
}

export const JWS_ALGORITHMS: readonly JwsAlgorithm[] = [
  { name: 'HS256', kind: 'secret', min_secret_bytes: 32 },
  { name: 'HS384', kind: 'secret', min_secret_bytes: 48 },
  { name: 'HS512', kind: 'secret', min_secret_bytes: 64 },
  { name: 'RS256', kind: 'rsa' },
  { name: 'RS384', kind: 'rsa' },
  { name: 'RS512', kind: 'rsa' },
  { name: 'PS256', kind: 'rsa' },
  { name: 'PS384', kind: 'rsa' },
  { name: 'PS512', kind: 'rsa' },
  { name: 'ES256', kind: 'ec', curve: 'prime256v1' },
  { name: 'ES384', kind: 'ec', curve: 'secp384r1' },
  { name: 'ES512', kind: 'ec', curve: 'secp521r1' },
  { name: 'EdDSA', kind: 'ed25519' },
  { name: 'Ed25519', kind: 'ed25519' },
]

export const JWS_ALGORITHM_NAMES = JWS_ALGORITHMS.map((a) => a.name)
export const MIN_RSA_BITS = 2048

const BY_NAME = new Map(JWS_ALGORITHMS.map((a) => [a.name, a]))

// JWS "alg" values are case-sensitive (RFC 7515 §4.1.1), so there is no case folding here.
export function findJwsAlgorithm(name: string): JwsAlgorithm | undefined {
  return BY_NAME.get(name)
}

export function requireJwsAlgorithm(name: string, field: string): JwsAlgorithm {
  const found = BY_NAME.get(name)
  if (found) return found
  const message =
    name.toLowerCase() === 'none'
      ? 'alg "none" produces unsigned tokens and is never accepted'
      : `Unsupported JWS algorithm "${name}"; use one of ${JWS_ALGORITHM_NAMES.join(', ')}`
  throw new AppError('ERR_UNSUPPORTED_ALGORITHM', message, {
    field,
    algorithm: name,
    supported: JWS_ALGORITHM_NAMES,
  })
}
