import { fill } from '../worst-case.ts'
import type { KeyMaterial } from './keys.ts'

// What the crypto ops' descriptors share: the RFC 7638 §3.1 key of their examples, the worst case, and the
// check that sends a private key to the pool.

// RFC 7638 §3.1 (the RSA public key of RFC 7517 Appendix A.1), whose thumbprint the RFC gives
export const RFC7638_KEY = {
  kty: 'RSA',
  n:
    '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMs' +
    'tn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n9' +
    '1CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
  e: 'AQAB',
}

// PEM text a private key is in, or a JWK with its private member
export function isPrivate(key: KeyMaterial): boolean {
  return typeof key === 'string' ? key.includes('PRIVATE KEY') : Object.hasOwn(key, 'd')
}

// the 16,384-bit modulus of an RSA public JWK, the largest read (its bytes need not make a real key)
const BIG_N = Buffer.alloc(2048, 0xc5).toString('base64url')

// That key; past its size, with a member no JWK defines (data, not a field: read and ignored) of escaped
// text, whose parse is then the cost.
export function keyWorst(bytes: number): { key: KeyMaterial } {
  const key: Record<string, unknown> = { kty: 'RSA', n: BIG_N, e: 'AQAB' }
  if (bytes > 4096) key.note = fill('é\n', Math.floor((bytes - 2800) / 2))
  return { key }
}
