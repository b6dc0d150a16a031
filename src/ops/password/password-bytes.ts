// The password as the bytes every algorithm hashes: UTF-8 text as sent (never normalized: a hash made
// elsewhere from the same text must match), or hex/base64 for a password that is not text.
import { AppError } from '../../errors.ts'
import { decodeInput } from '../encoding.ts'
import type { ByteEncoding } from '../types.ts'
import { MAX_PASSWORD_BYTES } from './types.ts'

export function passwordBytes(password: string, encoding: ByteEncoding): Buffer {
  // a string longer than this many UTF-16 units is surely over the byte limit: refused before decoding
  if (password.length > MAX_PASSWORD_BYTES * 2) throw tooLong()
  const bytes = decodeInput(password, encoding, 'password')
  if (bytes.length > MAX_PASSWORD_BYTES) throw tooLong()
  return bytes
}

// The length the caller sent is not repeated: an error may be logged, and a password's length is a hint.
function tooLong(): AppError {
  return new AppError(
    'ERR_PASSWORD_TOO_LONG',
    `A password is at most ${MAX_PASSWORD_BYTES} bytes; a longer one is refused, never truncated.`,
    { max_bytes: MAX_PASSWORD_BYTES },
  )
}
