import { z } from 'zod'
import { BYTE_ENCODINGS, DIGEST_ENCODINGS } from '../encoding.ts'
import { MAX_XOF_LENGTH } from './hash.ts'

// The request and response schemas of the hash endpoints, shared by the routes and by jobs (hash jobs
// take the JSON body's schema, plus the algorithm, as their params).
const lengthSchema = z.coerce
  .number()
  .int()
  .min(1)
  .max(MAX_XOF_LENGTH)
  .describe('Output length in bytes, for shake128/shake256 only')

export const hashBody = z.strictObject({
  input: z.string().describe('The data to hash, in input_encoding'),
  input_encoding: z.enum(BYTE_ENCODINGS).default('utf8'),
  output_encoding: z.enum(DIGEST_ENCODINGS).default('hex'),
  length: lengthSchema.optional(),
})

export const hashQuery = z.strictObject({
  output_encoding: z.enum(DIGEST_ENCODINGS).default('hex'),
  length: lengthSchema.optional(),
})

export const hashResult = z.object({
  algorithm: z.string(),
  digest: z.string(),
  output_encoding: z.enum(DIGEST_ENCODINGS),
  input_bytes: z.number().int(),
})

export const algorithmsResult = z.object({
  algorithms: z.array(
    z.object({
      name: z.string(),
      digest_bytes: z.number().int(),
      secure: z.boolean(),
      xof: z.boolean(),
      default_length: z.number().int().optional(),
    }),
  ),
})
