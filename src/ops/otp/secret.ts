import { randomBytes } from 'node:crypto'
import { AppError, isAppError } from '../../errors.ts'
import { base32Scanner, encodeBase32 } from '../text/base32.ts'
import { scanBytes } from '../text/shared.ts'

// A shared secret as people carry it: RFC 4648 Base32 in any case, with the spaces apps print it with and
// with or without its '=' padding (Google Authenticator's reading). Refused at the position of the character
// that is not, never naming it: it is part of a secret.
export function secretBytes(text: string, field = 'secret'): Buffer {
  let bytes: Uint8Array
  try {
    bytes = scanBytes(text, base32Scanner('base32', false))
  } catch (err) {
    if (!isAppError(err)) throw err
    const { position } = err.details as { position: number }
    throw new AppError(
      'ERR_INVALID_ENCODING',
      `\`${field}\` is not valid Base32 (RFC 4648) at position ${position}`,
      {
        field,
        encoding: 'base32',
        position,
      },
    )
  }
  if (bytes.length === 0) {
    throw new AppError('ERR_INVALID_ENCODING', `\`${field}\` holds no bytes`, {
      field,
      encoding: 'base32',
      position: 0,
    })
  }
  return Buffer.from(bytes)
}

// Base32 without padding, as the Key Uri Format writes secrets.
export function secretText(bytes: Uint8Array): string {
  return encodeBase32(bytes, 'base32', false)
}

export function newSecret(bytes: number): Buffer {
  return randomBytes(bytes)
}
