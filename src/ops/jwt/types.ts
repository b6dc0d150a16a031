// The jwt family's plain types, limits and constant lists, for the ops and their routes alike.

// 100 years: far beyond any sane token lifetime, and keeps every computed NumericDate a safe integer.
export const MAX_DURATION_SECONDS = 3_155_760_000
// 9999-12-31T23:59:59Z, the last instant an ISO 8601 year of four digits can name
export const MAX_NUMERIC_DATE = 253_402_300_799

export const VERIFY_REASON_CODES = [
  'alg_none',
  'algorithm_not_allowed',
  'key_algorithm_mismatch',
  'no_matching_key',
  'signature_invalid',
  'expired',
  'not_yet_valid',
  'too_old',
  'issued_in_future',
  'claim_mismatch',
  'missing_claim',
  'invalid_claim',
  'invalid_payload',
  'invalid_header',
  'unsupported_header',
] as const
export type VerifyReasonCode = (typeof VERIFY_REASON_CODES)[number]

// What POST /v1/jwt/inspect warns about, by a stable code.
export const INSPECT_WARNING_CODES = [
  'alg_none',
  'unsupported_algorithm',
  'symmetric_algorithm',
  'missing_kid',
  'key_in_header',
  'invalid_numeric_date',
  'missing_exp',
  'long_lifetime',
  'inconsistent_times',
  'iat_in_future',
  'payload_not_json',
] as const
export type InspectWarningCode = (typeof INSPECT_WARNING_CODES)[number]

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

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
