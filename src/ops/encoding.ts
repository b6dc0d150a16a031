import { AppError } from '../errors.ts'
import type { ByteEncoding, DigestEncoding } from './types.ts'

export { BYTE_ENCODINGS, type ByteEncoding, DIGEST_ENCODINGS, type DigestEncoding } from './types.ts'

// Index of the first lone surrogate (UTF-16 code unit), or -1 when the string is well-formed.
export function loneSurrogateAt(text: string): number {
  if (text.isWellFormed()) return -1
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++
        continue
      }
      return i
    }
    if (c >= 0xdc00 && c <= 0xdfff) return i
  }
  return -1
}

function invalid(field: string, encoding: string, position: number, message: string): AppError {
  return new AppError('ERR_INVALID_ENCODING', message, { field, encoding, position })
}

const HEX = /^[0-9a-fA-F]*$/
const B64 = /^[A-Za-z0-9+/]*={0,2}$/
const B64URL = /^[A-Za-z0-9_-]*={0,2}$/

function decodeBase64Strictish(text: string, field: string, url: boolean): Buffer {
  const alphabet = url ? B64URL : B64
  if (!alphabet.test(text)) {
    const bad = url ? /[^A-Za-z0-9_=-]/ : /[^A-Za-z0-9+/=]/
    const m = bad.exec(text)
    const pos = m ? m.index : text.indexOf('=')
    throw invalid(
      field,
      url ? 'base64url' : 'base64',
      pos,
      `Invalid ${url ? 'base64url' : 'base64'} character`,
    )
  }
  const body = text.replace(/=+$/, '')
  if (body.length % 4 === 1) {
    throw invalid(field, url ? 'base64url' : 'base64', body.length - 1, 'Truncated base64 input')
  }
  return Buffer.from(body, url ? 'base64url' : 'base64')
}

// Text in, bytes out, refusing anything that would be silently altered on the way.
export function decodeInput(text: string, encoding: ByteEncoding, field = 'input'): Buffer {
  switch (encoding) {
    case 'utf8': {
      const at = loneSurrogateAt(text)
      if (at >= 0)
        throw invalid(field, 'utf8', at, 'The text holds a lone UTF-16 surrogate, which has no UTF-8 form')
      return Buffer.from(text, 'utf8')
    }
    case 'hex': {
      if (!HEX.test(text)) {
        const pos = /[^0-9a-fA-F]/.exec(text)?.index ?? 0
        throw invalid(field, 'hex', pos, 'Invalid hex character')
      }
      if (text.length % 2 !== 0)
        throw invalid(field, 'hex', text.length - 1, 'Hex input has an odd number of digits')
      return Buffer.from(text, 'hex')
    }
    case 'base64':
      return decodeBase64Strictish(text, field, false)
    case 'base64url':
      return decodeBase64Strictish(text, field, true)
  }
}

export function encodeOutput(bytes: Uint8Array, encoding: DigestEncoding): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(encoding)
}
