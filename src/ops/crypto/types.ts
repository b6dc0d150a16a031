// The crypto family's constant lists and bounds, for the ops and their routes alike.

// what POST /v1/crypto/keypair makes
export const KEYPAIR_TYPES = ['rsa', 'ec', 'ed25519', 'x25519'] as const
export type KeypairType = (typeof KEYPAIR_TYPES)[number]
export const EC_CURVES = ['P-256', 'P-384', 'P-521'] as const
export type EcCurve = (typeof EC_CURVES)[number]
export const RSA_BITS = { min: 2048, max: 4096, default: 2048 } as const

// what convert and thumbprint read: every key with a JWK form (RFC 7518 §6, RFC 8037, RFC 8812)
export const KEY_TYPES = ['rsa', 'ec', 'ed25519', 'ed448', 'x25519', 'x448'] as const
export type KeyType = (typeof KEY_TYPES)[number]

export const THUMBPRINT_HASHES = ['sha256', 'sha384', 'sha512'] as const
export type ThumbprintHash = (typeof THUMBPRINT_HASHES)[number]

// a PEM of an RSA key of 16,384 bits, the largest read, is under 13 KiB
export const MAX_PEM_CHARS = 16 * 1024
