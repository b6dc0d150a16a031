// Argon2 (RFC 9106) through node:crypto's argon2Sync (OpenSSL's implementation), written and read in
// the PHC string format as libargon2 and argon2-cffi write it: $argon2id$v=19$m=…,t=…,p=…$salt$hash.
// Synchronous on purpose: on a pool thread the hash runs on that thread, where the pool counts it, not
// on libuv's shared threadpool.
import { argon2Sync } from 'node:crypto'
import { checkCap } from './caps.ts'
import {
  decimal,
  expectParams,
  formatPhc,
  hashBytes,
  malformed,
  type PhcString,
  saltBytes,
  unsupported,
} from './phc.ts'
import type { Argon2Params, Argon2Variant, PasswordCaps } from './types.ts'

// RFC 9106 §3.1: the salt is at least 8 bytes, the tag at least 4, parallelism below 2^24, and memory
// at least 8 KiB per lane. Version 0x13 (19) is the RFC's; OpenSSL computes no other.
export const ARGON2_VERSION = 19
export const ARGON2_MIN_SALT_BYTES = 8
const MAX_U32 = 2 ** 32 - 1
export const ARGON2_MAX_PARALLELISM = 2 ** 24 - 1

export interface Argon2Run {
  variant: Argon2Variant
  password: Uint8Array
  salt: Uint8Array
  params: Argon2Params
  tagLength: number
  // RFC 9106's optional secret key K and associated data X: no PHC string here carries them, the RFC's
  // test vectors do
  secret?: Uint8Array
  associatedData?: Uint8Array
}

export function argon2Derive(run: Argon2Run): Buffer {
  return argon2Sync(run.variant, {
    message: run.password,
    nonce: run.salt,
    memory: run.params.memory_kib,
    passes: run.params.iterations,
    parallelism: run.params.parallelism,
    tagLength: run.tagLength,
    ...(run.secret ? { secret: run.secret } : {}),
    ...(run.associatedData ? { associatedData: run.associatedData } : {}),
  })
}

export function argon2Caps(params: Argon2Params, caps: PasswordCaps): void {
  checkCap(caps, 'password_argon2_memory_kib', params.memory_kib, 'argon2 memory (KiB)')
  checkCap(caps, 'password_argon2_iterations', params.iterations, 'argon2 iterations')
  checkCap(caps, 'password_argon2_parallelism', params.parallelism, 'argon2 parallelism')
}

// What one hash holds off the V8 heap while it runs: its memory matrix (the lanes' threads' stacks are
// not counted).
export function argon2MemoryBytes(params: Argon2Params): number {
  return params.memory_kib * 1024
}

export function formatArgon2(
  variant: Argon2Variant,
  params: Argon2Params,
  salt: Uint8Array,
  hash: Uint8Array,
) {
  const { memory_kib: m, iterations: t, parallelism: p } = params
  return formatPhc(
    variant,
    ARGON2_VERSION,
    [
      ['m', m],
      ['t', t],
      ['p', p],
    ],
    salt,
    hash,
  )
}

export interface StoredArgon2 {
  variant: Argon2Variant
  params: Argon2Params
  salt: Buffer
  hash: Buffer
}

// libargon2's decoder (its decode_string) reads "$v=" when present and takes its absence for
// version 16; it reads m, t and p in that order and nothing else. The PHC spec's optional keyid and data
// parameters are refused as unsupported (libargon2 and argon2-cffi refuse them too; a keyid names a secret
// key this service does not have).
export function parseArgon2(phc: PhcString): StoredArgon2 {
  const variant = phc.id as Argon2Variant
  const names = phc.params.map(([name]) => name)
  if (
    names.length > 3 &&
    names.slice(0, 3).join() === 'm,t,p' &&
    names.slice(3).every((n) => n === 'keyid' || n === 'data')
  ) {
    throw unsupported(variant, 'Argon2 hashes with a keyid or associated data are not supported', {
      parameters: names.slice(3),
    })
  }
  const [m, t, p] = expectParams(phc, ['m', 't', 'p'])
  const params: Argon2Params = {
    memory_kib: decimal(m, 'm', MAX_U32),
    iterations: decimal(t, 't', MAX_U32),
    parallelism: decimal(p, 'p', ARGON2_MAX_PARALLELISM),
  }
  if (params.iterations < 1) throw malformed('t is at least 1', { field: 't' })
  if (params.parallelism < 1) throw malformed('p is at least 1', { field: 'p' })
  if (params.memory_kib < 8 * params.parallelism) throw malformed('m is at least 8·p', { field: 'm' })
  const salt = saltBytes(phc.salt, ARGON2_MIN_SALT_BYTES)
  const hash = hashBytes(phc.hash)
  // the version last, as libargon2 decodes: a string that is malformed anyway is reported as malformed
  if (phc.version === undefined || phc.version === '16') {
    throw unsupported(variant, 'Argon2 version 16 (0x10) hashes are not supported; version 19 (0x13) is', {
      version: 16,
    })
  }
  if (phc.version !== '19') throw malformed('the Argon2 version is 16 or 19', { field: 'v' })
  return { variant, params, salt, hash }
}
