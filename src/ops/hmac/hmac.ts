import { createHmac, timingSafeEqual } from 'node:crypto'
import { AppError } from '../../errors.ts'
import { type ByteEncoding, type DigestEncoding, decodeInput, encodeOutput } from '../encoding.ts'
import { HMAC_ALGORITHMS } from './types.ts'

export { HMAC_ALGORITHMS }

const KNOWN = new Set(HMAC_ALGORITHMS)

export function hmacAlgorithm(name: string): string {
  const canonical = name.toLowerCase()
  if (!KNOWN.has(canonical)) {
    throw new AppError('ERR_UNSUPPORTED_ALGORITHM', `Unknown HMAC algorithm "${name}"`, {
      algorithm: name,
      supported: HMAC_ALGORITHMS,
    })
  }
  return canonical
}

export interface HmacInput {
  algorithm: string
  input: string
  key: string
  input_encoding?: ByteEncoding
  key_encoding?: ByteEncoding
}

export interface HmacParams extends HmacInput {
  output_encoding?: DigestEncoding
}

export interface HmacResult {
  algorithm: string
  digest: string
  output_encoding: DigestEncoding
}

function mac(params: HmacInput): { algorithm: string; bytes: Buffer } {
  const algorithm = hmacAlgorithm(params.algorithm)
  // the key is decoded before the input so a bad key is reported first, by field and position only
  const key = decodeInput(params.key, params.key_encoding ?? 'utf8', 'key')
  const data = decodeInput(params.input, params.input_encoding ?? 'utf8', 'input')
  return { algorithm, bytes: createHmac(algorithm, key).update(data).digest() }
}

export function hmac(params: HmacParams): HmacResult {
  const { algorithm, bytes } = mac(params)
  const outputEncoding = params.output_encoding ?? 'hex'
  return { algorithm, digest: encodeOutput(bytes, outputEncoding), output_encoding: outputEncoding }
}

export interface HmacVerifyParams extends HmacInput {
  digest: string
  digest_encoding?: DigestEncoding
}

// A digest that does not decode is the caller's mistake (400); one that decodes to the wrong length is
// simply not valid. Equal-length digests are compared in constant time; the length itself is public.
export function verifyHmac(params: HmacVerifyParams): { valid: boolean } {
  const { bytes } = mac(params)
  const given = decodeInput(params.digest, params.digest_encoding ?? 'hex', 'digest')
  return { valid: given.length === bytes.length && timingSafeEqual(given, bytes) }
}
