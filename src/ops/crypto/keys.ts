import {
  createECDH,
  createPrivateKey,
  createPublicKey,
  type JsonWebKey,
  type KeyObject,
  X509Certificate,
} from 'node:crypto'
import { calculateJwkThumbprint, calculateJwkThumbprintUri, type JWK } from 'jose'
import { AppError } from '../../errors.ts'
import type { KeyType, ThumbprintHash } from './types.ts'

// Reading a key, PEM or JWK, public or private, and writing it both ways. Messages name the field and the
// problem, never the key material.

export type KeyMaterial = string | Record<string, unknown>

export interface ReadKey {
  kind: 'private' | 'public'
  type: KeyType
  curve?: string
  bits?: number
  key: KeyObject
}

export interface KeyForms {
  pem: string
  jwk: Record<string, unknown>
}

// RFC 7518's names of the curves, by OpenSSL's
const CURVES: Record<string, string> = {
  prime256v1: 'P-256',
  secp384r1: 'P-384',
  secp521r1: 'P-521',
  secp256k1: 'secp256k1',
}
// the largest RSA modulus read (the largest any library issues)
const MAX_RSA_BITS = 16_384

export function badKey(message: string, extra: Record<string, unknown> = {}, field = 'key'): AppError {
  return new AppError('ERR_INVALID_KEY_MATERIAL', message, { field, ...extra })
}

function describe(key: KeyObject): Pick<ReadKey, 'type' | 'curve' | 'bits'> {
  const type = key.asymmetricKeyType
  if (type === 'rsa') {
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0
    if (bits > MAX_RSA_BITS) {
      throw badKey(`RSA keys of at most ${MAX_RSA_BITS} bits are read; this one has ${bits}`, {
        modulus_bits: bits,
      })
    }
    return { type, bits }
  }
  if (type === 'ec') {
    const named = key.asymmetricKeyDetails?.namedCurve ?? 'unknown'
    const curve = CURVES[named]
    if (!curve) throw badKey(`EC curve ${named} has no JWK form`, { curve: named })
    return { type, curve }
  }
  if (type === 'ed25519' || type === 'ed448' || type === 'x25519' || type === 'x448') return { type }
  const hint = type === 'rsa-pss' ? ' (RSASSA-PSS-restricted keys have no JWK form; use a plain RSA key)' : ''
  throw badKey(`A ${type} key has no JWK form${hint}`, { key_type: type })
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----/g

function fromPem(pem: string): { key: KeyObject; kind: ReadKey['kind'] } {
  const labels = [...pem.matchAll(BLOCK)].map((m) => m[1]!)
  if (labels.length === 0) throw badKey('`key` is neither a PEM block nor a JWK')
  if (labels.length > 1)
    throw badKey('`key` holds more than one PEM block; send one key', { blocks: labels.length })
  const label = labels[0]!
  if (label === 'ENCRYPTED PRIVATE KEY' || /Proc-Type: *4,ENCRYPTED/.test(pem)) {
    throw badKey('`key` is an encrypted private key; it is not read (decrypt it first)', { pem_label: label })
  }
  try {
    if (label === 'CERTIFICATE') return { key: new X509Certificate(pem).publicKey, kind: 'public' }
    if (label.endsWith('PRIVATE KEY'))
      return { key: createPrivateKey({ key: pem, format: 'pem' }), kind: 'private' }
    return { key: createPublicKey({ key: pem, format: 'pem' }), kind: 'public' }
  } catch {
    throw badKey(
      `\`key\` is not a readable "${label}" PEM block (PKCS#8, PKCS#1 or SEC1 private keys; SPKI or PKCS#1 public keys; X.509 certificates)`,
      { pem_label: label },
    )
  }
}

function fromJwk(jwk: Record<string, unknown>): { key: KeyObject; kind: ReadKey['kind'] } {
  if (jwk.kty === 'oct') throw badKey('`key` is a symmetric (oct) JWK, which has no key pair')
  const kind = Object.hasOwn(jwk, 'd') ? 'private' : 'public'
  if (kind === 'private' && jwk.kty === 'RSA' && !Object.hasOwn(jwk, 'p')) {
    throw badKey(
      'RSA private JWKs are read with their CRT members (p, q, dp, dq, qi), which RFC 7518 §6.3.2 asks producers to include',
    )
  }
  let key: KeyObject
  try {
    const input = { key: jwk as JsonWebKey, format: 'jwk' as const }
    key = kind === 'private' ? createPrivateKey(input) : createPublicKey(input)
  } catch {
    throw badKey('`key` is not a valid JWK of an RSA, EC or OKP key (RFC 7517, RFC 7518, RFC 8037)', {
      kty: typeof jwk.kty === 'string' ? jwk.kty.slice(0, 16) : null,
    })
  }
  if (kind === 'private') checkPublicMembers(jwk, key)
  return { key, kind }
}

// A private JWK carries its public members (RFC 7518 §6.2.2, §6.3.2; RFC 8037 §2), which must be those of
// its private key: OpenSSL derives an OKP key's from "d" and would ignore a wrong "x".
function checkPublicMembers(jwk: Record<string, unknown>, key: KeyObject): void {
  const derived = createPublicKey(key).export({ format: 'jwk' }) as Record<string, unknown>
  for (const member of ['n', 'e', 'x', 'y']) {
    if (derived[member] !== undefined && jwk[member] !== derived[member]) {
      throw badKey(
        `The private JWK's "${member}" is not its private key's (a JWK's public members must match it)`,
        {
          member,
        },
      )
    }
  }
}

// OpenSSL keeps an EC private key's public point as it was given (a JWK's x and y, a PKCS#8 or SEC1 key's
// optional public key) without checking it against d: the point is computed here (ECDH, d·G) and compared.
function checkEcPoint(key: KeyObject, named: string): void {
  const jwk = key.export({ format: 'jwk' }) as Record<string, string>
  const ecdh = createECDH(named)
  ecdh.setPrivateKey(Buffer.from(jwk.d!, 'base64url'))
  const point = ecdh.getPublicKey()
  const size = (point.length - 1) / 2
  const x = point.subarray(1, 1 + size).toString('base64url')
  const y = point.subarray(1 + size).toString('base64url')
  if (x !== jwk.x || y !== jwk.y) {
    throw badKey("The EC private key's public point is not d·G: the key is inconsistent", { member: 'x' })
  }
}

export function readKey(material: KeyMaterial): ReadKey {
  const { key, kind } = typeof material === 'string' ? fromPem(material) : fromJwk(material)
  const read: ReadKey = { kind, key, ...describe(key) }
  if (kind === 'private' && read.type === 'ec') checkEcPoint(key, key.asymmetricKeyDetails!.namedCurve!)
  return read
}

// A JWK's members in RFC order: the type, the curve, the public members, then the private ones.
const ORDER = ['kty', 'crv', 'n', 'e', 'x', 'y', 'd', 'p', 'q', 'dp', 'dq', 'qi']

function ordered(jwk: JsonWebKey): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const name of ORDER) if (jwk[name] !== undefined) out[name] = jwk[name]
  return out
}

export function formsOf(key: KeyObject): KeyForms {
  const pem =
    key.type === 'private'
      ? (key.export({ type: 'pkcs8', format: 'pem' }) as string)
      : (key.export({ type: 'spki', format: 'pem' }) as string)
  return { pem, jwk: ordered(key.export({ format: 'jwk' })) }
}

// RFC 7638 (jose): the hash of the public key's required members; and RFC 9278's URI of it.
export async function thumbprints(
  publicJwk: Record<string, unknown>,
  hash: ThumbprintHash = 'sha256',
): Promise<{ thumbprint: string; uri: string }> {
  const jwk = publicJwk as JWK
  return {
    thumbprint: await calculateJwkThumbprint(jwk, hash),
    uri: await calculateJwkThumbprintUri(jwk, hash),
  }
}
