// scrypt (RFC 7914) through node:crypto's scryptSync, written and read as passlib writes it (the de facto
// PHC form, passlib.handlers.scrypt): $scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>, B64 without padding.
import { scryptSync } from 'node:crypto'
import { checkCap } from './caps.ts'
import { decimal, expectParams, formatPhc, hashBytes, malformed, type PhcString, saltBytes } from './phc.ts'
import type { PasswordCaps, ScryptParams } from './types.ts'

// RFC 7914 §2 and §6: N = 2^log2_n > 1, N < 2^(128·r/8), r·p < 2^30.
export const SCRYPT_MAX_LOG2_N = 63
export const SCRYPT_MAX_RP = 2 ** 30 - 1
// What OpenSSL (node:crypto's scrypt) computes is narrower than the RFC: it holds B, p·128·r bytes, in one
// buffer of at most INT_MAX bytes (EVP_PBE_scrypt_ex refuses more as "memory limit exceeded"), so r·p is
// at most 16,777,215. Past it a hash cannot be made or checked here: refused with the reason, never a 500.
export const SCRYPT_MAX_RP_COMPUTED = Math.floor((2 ** 31 - 1) / 128)

export function scryptParamsProblem(params: ScryptParams): string | undefined {
  if (params.log2_n >= 16 * params.block_size)
    return 'log2_n is below 16·block_size (N < 2^(128·r/8), RFC 7914)'
  if (params.block_size * params.parallelism > SCRYPT_MAX_RP_COMPUTED)
    return `block_size·parallelism is at most ${SCRYPT_MAX_RP_COMPUTED} (what OpenSSL computes; RFC 7914 allows up to 2^30 - 1)`
  return undefined
}

// OpenSSL's own count of what it allocates (providers/implementations/kdfs/scrypt.c): B of p·128·r bytes
// and V of 128·r·(N+2); its maxmem check is against exactly this sum.
export function scryptMemoryBytes(params: ScryptParams): number {
  const { log2_n, block_size: r, parallelism: p } = params
  return 128 * r * (2 ** log2_n + 2) + 128 * r * p
}

// N·r bounds the memory (128·N·r bytes); N·r·p the time, which grows with each of the three.
export function scryptCaps(params: ScryptParams, caps: PasswordCaps): void {
  const nr = 2 ** params.log2_n * params.block_size
  checkCap(caps, 'password_scrypt_n_r', nr, 'scrypt N·r')
  checkCap(caps, 'password_scrypt_n_r_p', nr * params.parallelism, 'scrypt N·r·p')
}

export function scryptDerive(
  password: Uint8Array,
  salt: Uint8Array,
  params: ScryptParams,
  length: number,
): Buffer {
  return scryptSync(password, salt, length, {
    N: 2 ** params.log2_n,
    r: params.block_size,
    p: params.parallelism,
    maxmem: scryptMemoryBytes(params),
  })
}

export function formatScrypt(params: ScryptParams, salt: Uint8Array, hash: Uint8Array): string {
  const { log2_n, block_size, parallelism } = params
  return formatPhc(
    'scrypt',
    undefined,
    [
      ['ln', log2_n],
      ['r', block_size],
      ['p', parallelism],
    ],
    salt,
    hash,
  )
}

export interface StoredScrypt {
  params: ScryptParams
  salt: Buffer
  hash: Buffer
}

// passlib takes salts of 0 to 1024 bytes (its own test vectors include the empty salt of RFC 7914 §12).
export function parseScrypt(phc: PhcString): StoredScrypt {
  if (phc.version !== undefined) throw malformed('a scrypt hash has no version field', { field: 'v' })
  const [ln, r, p] = expectParams(phc, ['ln', 'r', 'p'])
  const params: ScryptParams = {
    log2_n: decimal(ln, 'ln', SCRYPT_MAX_LOG2_N),
    block_size: decimal(r, 'r', SCRYPT_MAX_RP),
    parallelism: decimal(p, 'p', SCRYPT_MAX_RP),
  }
  if (params.log2_n < 1) throw malformed('ln is at least 1', { field: 'ln' })
  if (params.block_size < 1) throw malformed('r is at least 1', { field: 'r' })
  if (params.parallelism < 1) throw malformed('p is at least 1', { field: 'p' })
  const problem = scryptParamsProblem(params)
  if (problem) throw malformed(problem, { field: 'params' })
  return { params, salt: saltBytes(phc.salt, 0), hash: hashBytes(phc.hash) }
}
