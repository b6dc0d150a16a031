// The hmac family's request bodies: the routes' schemas, and what a worker validates a large
// /v1/hmac/verify body with (OpDescriptor.body, src/ops/define.ts; /v1/hmac/{algorithm} takes its algorithm
// from the path, so its body is parsed by the gateway).
import { z } from 'zod'
import { BYTE_ENCODINGS, DIGEST_ENCODINGS } from '../types.ts'
import { HMAC_ALGORITHMS } from './types.ts'

// Any case is accepted (SHA256 is sha256); the document offers the canonical names, and the op refuses any
// other with ERR_UNSUPPORTED_ALGORITHM and the list of supported ones.
export const algorithmField = z
  .string()
  .max(64)
  .meta({ enum: [...HMAC_ALGORITHMS], description: 'The hash function, case-insensitive' })

const macFields = {
  input: z.string().describe('The message, in input_encoding'),
  key: z.string().describe('The secret key, in key_encoding. Never logged or echoed back'),
  input_encoding: z.enum(BYTE_ENCODINGS).default('utf8'),
  key_encoding: z.enum(BYTE_ENCODINGS).default('utf8'),
}

export const hmacBody = z.strictObject({
  ...macFields,
  output_encoding: z.enum(DIGEST_ENCODINGS).default('hex'),
})

export const hmacVerifyBody = z.strictObject({
  algorithm: algorithmField,
  ...macFields,
  digest: z.string().describe('The expected MAC, in digest_encoding'),
  digest_encoding: z
    .enum(DIGEST_ENCODINGS)
    .default('hex')
    .describe('Encoding of digest (hex is case-insensitive)'),
})

export const hmacResult = z.object({
  algorithm: z
    .enum(HMAC_ALGORITHMS as [string, ...string[]])
    .meta({ id: 'HmacAlgorithm', description: 'The hash function, by its canonical (lower-case) name' }),
  digest: z.string(),
  output_encoding: z.enum(DIGEST_ENCODINGS),
})

export const hmacVerifyResult = z.object({
  valid: z.boolean().describe('True when digest equals the HMAC; compared in constant time'),
})
