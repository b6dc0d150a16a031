import { createHmac } from 'node:crypto'
import type { OtpAlgorithm } from './types.ts'

// RFC 4226 §5.3: HMAC of the 8-byte big-endian counter, dynamic truncation to 31 bits, the low `digits`
// decimal digits, zero-padded. RFC 6238 is this with the counter T = floor(unix time / period).

const HASH: Record<OtpAlgorithm, string> = { SHA1: 'sha1', SHA256: 'sha256', SHA512: 'sha512' }

export function hotp(secret: Uint8Array, counter: number, digits: number, algorithm: OtpAlgorithm): string {
  const message = Buffer.alloc(8)
  message.writeBigUInt64BE(BigInt(counter))
  const mac = createHmac(HASH[algorithm], secret).update(message).digest()
  const offset = mac[mac.length - 1]! & 0x0f
  const binary =
    ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!
  return String(binary % 10 ** digits).padStart(digits, '0')
}
