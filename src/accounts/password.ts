import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'

// scrypt from node:crypto (OWASP's minimum is N=2^17 with r=8 for interactive logins when memory
// allows; 2^15 keeps a sign-in near 100 ms and 32 MiB on a 2-core box). Parameters travel with the
// hash in a PHC string, so they can be raised later without invalidating existing hashes.
const LOG_N = 15
const R = 8
const P = 1
const SALT_BYTES = 16
const HASH_BYTES = 32
// Bounds for parameters read back from the store (room to raise N to OWASP's 2^17, 128 MiB): a
// tampered record must not buy a multi-gigabyte scrypt.
const MAX_LOG_N = 17
const MAX_R = 8
const MAX_P = 2

export const PASSWORD_MIN = 10
export const PASSWORD_MAX = 256

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/

function derive(password: string, salt: Buffer, logN: number, r: number, p: number, length: number) {
  // NIST SP 800-63B: passwords are compared after Unicode normalization (NFKC), so the same
  // password typed on two keyboards is the same password
  const secret = Buffer.from(password.normalize('NFKC'), 'utf8')
  const N = 2 ** logN
  return new Promise<Buffer>((resolve, reject) => {
    scrypt(secret, salt, length, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    )
  })
}

const b64 = (buf: Buffer) => buf.toString('base64').replace(/=+$/, '')

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const hash = await derive(password, salt, LOG_N, R, P, HASH_BYTES)
  return `$scrypt$ln=${LOG_N},r=${R},p=${P}$${b64(salt)}$${b64(hash)}`
}

// Constant-time comparison; a malformed or out-of-bounds stored hash never matches.
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = PHC.exec(stored)
  if (!m) return false
  const [logN, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (logN < 1 || logN > MAX_LOG_N || r < 1 || r > MAX_R || p < 1 || p > MAX_P) return false
  const salt = Buffer.from(m[4]!, 'base64')
  const expected = Buffer.from(m[5]!, 'base64')
  if (expected.length < 16) return false
  const actual = await derive(password, salt, logN, r, p, expected.length)
  return timingSafeEqual(actual, expected)
}
