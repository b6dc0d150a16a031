// PBKDF2-HMAC (RFC 8018 §5.2) through node:crypto's pbkdf2Sync. Written in the PHC string format,
// $pbkdf2-sha256$i=<iterations>$<salt>$<hash> with B64 (as RustCrypto's pbkdf2 crate writes it, which adds
// an optional l=<output bytes>); read in that form and in passlib's, whose rounds field has no name and
// whose salt and hash are "ab64" (B64 with "." for "+"):
//   passlib  $pbkdf2-sha256$1212$4vjV83LKPjQzk31VI4E0Vw$hsYF68OiOUPdDZ1Fg.fJPeq1h/gXXY7acBp9/6c.tmQ
//   PHC      $pbkdf2-sha256$i=1212$4vjV83LKPjQzk31VI4E0Vw$hsYF68OiOUPdDZ1Fg+fJPeq1h/gXXY7acBp9/6c+tmQ
import { pbkdf2Sync } from 'node:crypto'
import { ab64Decode } from './b64.ts'
import { checkCap } from './caps.ts'
import { decimal, formatPhc, hashBytes, malformed, type PhcString, saltBytes } from './phc.ts'
import type { PasswordCaps, Pbkdf2Params, Pbkdf2Variant } from './types.ts'

const MAX_U32 = 2 ** 32 - 1

export const PBKDF2_DIGESTS: Record<Pbkdf2Variant, { digest: string; bytes: number }> = {
  'pbkdf2-sha256': { digest: 'sha256', bytes: 32 },
  'pbkdf2-sha512': { digest: 'sha512', bytes: 64 },
}

export function pbkdf2Derive(
  digest: string,
  password: Uint8Array,
  salt: Uint8Array,
  iterations: number,
  length: number,
): Buffer {
  return pbkdf2Sync(password, salt, iterations, length, digest)
}

export function pbkdf2Caps(params: Pbkdf2Params, caps: PasswordCaps): void {
  checkCap(caps, 'password_pbkdf2_iterations', params.iterations, 'PBKDF2 iterations')
}

export function formatPbkdf2(
  variant: Pbkdf2Variant,
  params: Pbkdf2Params,
  salt: Uint8Array,
  hash: Uint8Array,
) {
  return formatPhc(variant, undefined, [['i', params.iterations]], salt, hash)
}

export interface StoredPbkdf2 {
  params: Pbkdf2Params
  salt: Buffer
  hash: Buffer
  format: 'phc' | 'passlib'
}

// passlib's form is told apart by its second field: bare digits (passlib's rounds) or a name=value list.
export function isPasslibPbkdf2(text: string): boolean {
  return /^\$pbkdf2-sha(256|512)\$[0-9]/.test(text)
}

// passlib.utils.handlers.parse_mc3: $<ident><rounds>$<salt>$<checksum>, rounds decimal without zero
// padding; salts of 0 to 1024 bytes (passlib's max_salt_size).
export function parsePasslibPbkdf2(text: string): StoredPbkdf2 {
  const parts = text.split('$')
  if (parts.length !== 5) throw malformed('a passlib PBKDF2 hash is $pbkdf2-<digest>$<rounds>$<salt>$<hash>')
  const iterations = decimal(parts[2], 'rounds', MAX_U32)
  if (iterations < 1) throw malformed('rounds is at least 1', { field: 'rounds' })
  return {
    params: { iterations },
    salt: saltBytes(parts[3], 0, ab64Decode),
    hash: hashBytes(parts[4], ab64Decode),
    format: 'passlib',
  }
}

export function parsePbkdf2(phc: PhcString): StoredPbkdf2 {
  if (phc.version !== undefined) throw malformed('a PBKDF2 hash has no version field', { field: 'v' })
  const names = phc.params.map(([name]) => name)
  if (names[0] !== 'i' || names.length > 2 || (names.length === 2 && names[1] !== 'l')) {
    throw malformed('the parameters are i=<iterations>, optionally followed by l=<output bytes>', {
      field: 'params',
    })
  }
  const iterations = decimal(phc.params[0]![1], 'i', MAX_U32)
  if (iterations < 1) throw malformed('i is at least 1', { field: 'i' })
  const salt = saltBytes(phc.salt, 0)
  const hash = hashBytes(phc.hash)
  if (names.length === 2 && decimal(phc.params[1]![1], 'l', MAX_U32) !== hash.length) {
    throw malformed('l is the length of the hash output in bytes', { field: 'l' })
  }
  return { params: { iterations }, salt, hash, format: 'phc' }
}
