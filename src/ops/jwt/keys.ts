import {
  createPrivateKey,
  createPublicKey,
  type JsonWebKey,
  type KeyObject,
  X509Certificate,
} from 'node:crypto'
import { AppError } from '../../errors.ts'
import { type ByteEncoding, decodeInput } from '../encoding.ts'
import { type JwsAlgorithm, type KeyKind, MIN_RSA_BITS } from './algorithms.ts'
import { isJsonObject } from './decode.ts'

export type KeyMaterial = string | Record<string, unknown>

export interface JwsKey {
  kind: KeyKind
  key: KeyObject | Uint8Array
  curve?: string
  // JWK metadata that narrows what the key may be used for (RFC 7517 §4)
  kid?: string
  alg?: string
  use?: string
}

const SUPPORTED_CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1'])

// Budgets of an RSA verification, which costs about modulus bits squared times the exponent's bits:
// exponents past 2^32 (every real key uses 65537; a huge one made 100 keys cost 0.7 s of CPU) and
// moduli past 16,384 bits (the largest any library issues) are refused as key material.
export const MAX_RSA_EXPONENT = 2n ** 32n
export const MAX_RSA_BITS = 16384

// Messages name the field and the problem, never the key material itself.
function badKey(field: string, message: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError('ERR_INVALID_KEY_MATERIAL', message, { field, ...extra })
}

function classify(key: KeyObject, field: string): Pick<JwsKey, 'kind' | 'curve'> {
  const type = key.asymmetricKeyType
  if (type === 'rsa') {
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0
    if (bits < MIN_RSA_BITS) {
      throw badKey(field, `RSA keys must be at least ${MIN_RSA_BITS} bits; this one has ${bits}`, {
        modulus_bits: bits,
        min_bits: MIN_RSA_BITS,
      })
    }
    if (bits > MAX_RSA_BITS) {
      throw badKey(field, `RSA keys may have at most ${MAX_RSA_BITS} bits; this one has ${bits}`, {
        modulus_bits: bits,
        max_bits: MAX_RSA_BITS,
      })
    }
    const exponent = key.asymmetricKeyDetails?.publicExponent ?? 0n
    if (exponent > MAX_RSA_EXPONENT) {
      throw badKey(
        field,
        `RSA public exponents may be at most 2^32 (65537 is usual); ${field} has a larger one`,
        {
          max_exponent: Number(MAX_RSA_EXPONENT),
        },
      )
    }
    return { kind: 'rsa' }
  }
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve ?? 'unknown'
    if (!SUPPORTED_CURVES.has(curve)) {
      throw badKey(field, `EC curve ${curve} has no JWS algorithm here; use P-256, P-384 or P-521`, { curve })
    }
    return { kind: 'ec', curve }
  }
  if (type === 'ed25519') return { kind: 'ed25519' }
  const hint =
    type === 'rsa-pss' ? ' (RSASSA-PSS-restricted keys are not supported; use a plain RSA key)' : ''
  throw badKey(
    field,
    `A ${type ?? 'symmetric'} key cannot sign or verify any supported JWS algorithm${hint}`,
    {
      key_type: type ?? 'secret',
    },
  )
}

function jwkMeta(jwk: Record<string, unknown>): Pick<JwsKey, 'kid' | 'alg' | 'use'> {
  const meta: Pick<JwsKey, 'kid' | 'alg' | 'use'> = {}
  if (typeof jwk.kid === 'string') meta.kid = jwk.kid
  if (typeof jwk.alg === 'string') meta.alg = jwk.alg
  if (typeof jwk.use === 'string') meta.use = jwk.use
  return meta
}

export function secretKey(secret: string, encoding: ByteEncoding, field = 'secret'): Uint8Array {
  const bytes = decodeInput(secret, encoding, field)
  if (bytes.length === 0) throw badKey(field, 'The secret is empty')
  return bytes
}

function publicFromPem(pem: string, field: string): KeyObject {
  if (pem.includes('PRIVATE KEY-----')) {
    throw badKey(
      field,
      `${field} holds a private key; send only the public key (SPKI PEM, certificate or JWK)`,
    )
  }
  try {
    if (pem.includes('-----BEGIN CERTIFICATE-----')) return new X509Certificate(pem).publicKey
    return createPublicKey({ key: pem, format: 'pem' })
  } catch {
    throw badKey(field, `${field} is not a PEM public key (SPKI or PKCS#1) or X.509 certificate`)
  }
}

function publicFromJwk(jwk: Record<string, unknown>, field: string): JwsKey {
  if (jwk.kty === 'oct') throw badKey(field, `${field} holds a symmetric (oct) JWK; send it as "secret"`)
  if (Object.hasOwn(jwk, 'd') || Object.hasOwn(jwk, 'priv')) {
    throw badKey(field, `${field} holds a private JWK ("d"); send only the public members`)
  }
  let key: KeyObject
  try {
    key = createPublicKey({ key: jwk as unknown as JsonWebKey, format: 'jwk' })
  } catch {
    throw badKey(field, `${field} is not a usable RSA, EC or OKP public JWK`)
  }
  return { ...classify(key, field), key, ...jwkMeta(jwk) }
}

export function publicKey(material: KeyMaterial, field = 'public_key'): JwsKey {
  if (typeof material !== 'string') return publicFromJwk(material, field)
  const key = publicFromPem(material, field)
  return { ...classify(key, field), key }
}

// JWKS entries the runtime cannot sign with at all (other kty, e.g. future PQ keys) are skipped like
// jose's local JWKS skips them; an entry of a known kty that fails to import is the caller's mistake.
export function jwksKeys(jwks: { keys: unknown[] }): JwsKey[] {
  const out: JwsKey[] = []
  jwks.keys.forEach((entry, index) => {
    const field = `jwks.keys.${index}`
    if (!isJsonObject(entry)) throw badKey(field, 'Every JWKS entry must be a JWK object', { index })
    if (entry.kty === 'oct') {
      if (typeof entry.k !== 'string' || entry.k.length === 0) {
        throw badKey(field, 'An oct JWK needs a non-empty base64url "k"', { index })
      }
      try {
        out.push({ kind: 'secret', key: decodeInput(entry.k, 'base64url', `${field}.k`), ...jwkMeta(entry) })
      } catch {
        throw badKey(field, 'The oct JWK "k" is not base64url', { index })
      }
      return
    }
    if (entry.kty !== 'RSA' && entry.kty !== 'EC' && entry.kty !== 'OKP') return
    try {
      out.push(publicFromJwk(entry, field))
    } catch (err) {
      if (err instanceof AppError) throw new AppError(err.code, err.message, { ...err.details, index })
      throw err
    }
  })
  return out
}

export function privateKey(material: KeyMaterial, field = 'private_key'): JwsKey {
  let key: KeyObject
  if (typeof material === 'string') {
    if (material.includes('ENCRYPTED')) {
      throw badKey(field, 'Encrypted private keys are not supported; send an unencrypted PKCS#8 PEM or a JWK')
    }
    if (!material.includes('PRIVATE KEY-----')) {
      throw badKey(field, `${field} must be a PEM private key (PKCS#8 "BEGIN PRIVATE KEY") or a JWK`)
    }
    try {
      key = createPrivateKey({ key: material, format: 'pem' })
    } catch {
      throw badKey(field, `${field} is not a readable PEM private key`)
    }
  } else {
    if (material.kty === 'oct')
      throw badKey(field, `${field} holds a symmetric (oct) JWK; send it as "secret"`)
    try {
      key = createPrivateKey({ key: material as unknown as JsonWebKey, format: 'jwk' })
    } catch {
      throw badKey(field, `${field} is not a usable private JWK (RSA, EC or OKP with "d")`)
    }
  }
  return { ...classify(key, field), key, ...(typeof material === 'string' ? {} : jwkMeta(material)) }
}

// The algorithm family must match the key type, and a JWK's own "alg"/"use" must allow it: this is
// what stops an HS256 token from being "verified" with an RSA public key used as an HMAC secret.
export function keyFits(alg: JwsAlgorithm, key: JwsKey): boolean {
  if (alg.kind !== key.kind) return false
  if (alg.curve !== undefined && alg.curve !== key.curve) return false
  if (key.alg !== undefined && key.alg !== alg.name) return false
  if (key.use !== undefined && key.use !== 'sig') return false
  return true
}
