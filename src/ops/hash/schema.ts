import { z } from 'zod'
import { BYTE_ENCODINGS, DIGEST_ENCODINGS } from '../encoding.ts'
import { ALGORITHMS, MAX_XOF_LENGTH } from './hash.ts'

// The request and response schemas of the hash endpoints, shared by the routes and by jobs (hash jobs
// take the JSON body's schema, plus the algorithm, as their params).
const lengthSchema = z.coerce
  .number()
  .int()
  .min(1)
  .max(MAX_XOF_LENGTH)
  .describe('Output length in bytes, for shake128/shake256 only')

const NAMES = ALGORITHMS.map((a) => a.name) as [string, ...string[]]

// The algorithms by their canonical names: what answers name, and what clients are offered.
export const hashAlgorithm = z.enum(NAMES).meta({
  id: 'HashAlgorithm',
  description: "A hash algorithm (GET /v1/hash/algorithms; the list is the runtime's OpenSSL's, plus crc32)",
})

// In a path, any case is accepted (SHA256 is sha256); the document offers the canonical names.
export const hashAlgorithmParam = z
  .string()
  .max(64)
  .meta({ enum: NAMES, description: 'The hash algorithm, case-insensitive (GET /v1/hash/algorithms)' })

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
  algorithm: hashAlgorithm,
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

// A hash job's params: the JSON body, plus the algorithm its endpoint takes from the path.
export const hashParams = hashBody.extend({
  algorithm: hashAlgorithmParam
    .min(1)
    .describe(
      'The hash algorithm, as in the path of POST /v1/hash/{algorithm} (see GET /v1/hash/algorithms)',
    ),
})
