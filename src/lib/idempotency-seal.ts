import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'

// An Idempotency-Key as stored: the store sees only a hash of (scope, key) as the record's id, and the
// response it keeps is sealed (AES-256-GCM) with a key derived from (scope, key) by another hash. A create's
// response can hold a secret (a new API key in plain text): someone who can read the store but does not
// know the client's Idempotency-Key can neither find which record is whose nor read one.

// 1–255 printable ASCII characters (space included), as Stripe allows
export const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/

const derive = (label: string, scope: string, key: string) =>
  createHash('sha256').update(`anvil-idempotency-${label}\0${scope}\0${key}`).digest()

export function recordId(scope: string, key: string): string {
  return derive('id', scope, key).toString('base64url')
}

// The scope as the store names it (what its kept answers weigh is counted under this name): a hash, so
// the store shows how many answers a scope keeps, never whose keys they are or what they say.
export function scopeId(scope: string): string {
  return derive('scope', scope, '').toString('base64url')
}

export interface StoredResponse {
  status: number
  headers: Record<string, string>
  body: string
  // an answer over the byte bound: kept as its status, size and digest only, its body left empty (a replay
  // says that it cannot be replayed)
  omitted?: { bytes: number; sha256: string }
}

export function seal(scope: string, key: string, response: StoredResponse): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', derive('seal', scope, key), iv)
  const text = Buffer.concat([cipher.update(JSON.stringify(response), 'utf8'), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), text]).toString('base64')
}

// undefined when the record does not open with this key (never expected: the id is derived from it too)
export function unseal(scope: string, key: string, sealed: string): StoredResponse | undefined {
  try {
    const bytes = Buffer.from(sealed, 'base64')
    const decipher = createDecipheriv('aes-256-gcm', derive('seal', scope, key), bytes.subarray(0, 12))
    decipher.setAuthTag(bytes.subarray(12, 28))
    const text = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')
    return JSON.parse(text) as StoredResponse
  } catch {
    return undefined
  }
}
