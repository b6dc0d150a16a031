import { z } from 'zod'
import { BYTE_ENCODINGS } from '../types.ts'
import { ALGORITHMS, COMPRESS_OUTPUT_ENCODINGS, DECOMPRESS_OUTPUT_ENCODINGS, LEVELS } from './types.ts'

// The compression family's request and response schemas: JSON bodies, and the query strings of raw
// application/octet-stream bodies.

const levels = Object.entries(LEVELS)
  .map(([name, l]) => `${name} ${l.min}–${l.max} (default ${l.default})`)
  .join(', ')

// In a path, any case is accepted (GZIP is gzip); the document offers the canonical names.
export const algorithmParam = z
  .string()
  .max(32)
  .meta({
    enum: [...ALGORITHMS],
    description:
      'gzip (RFC 1952), deflate (the zlib format, RFC 1950, as HTTP\'s "deflate"), deflate-raw (RFC 1951), ' +
      'brotli (RFC 7932) or zstd (RFC 8878)',
  })

const level = z
  .number()
  .int()
  .optional()
  .describe(`Compression level: ${levels}; capped per plan (compression_*_max_level)`)
const compressOutput = z
  .enum(COMPRESS_OUTPUT_ENCODINGS)
  .default('base64')
  .describe('How the JSON answer spells the compressed bytes')
const decompressOutput = z
  .enum(DECOMPRESS_OUTPUT_ENCODINGS)
  .default('base64')
  .describe('How the JSON answer spells the decompressed bytes (utf8: as text, U+FFFD for what is not UTF-8)')

export const compressBody = z.strictObject({
  input: z.string().describe('The data to compress, in input_encoding'),
  input_encoding: z.enum(BYTE_ENCODINGS).default('utf8'),
  level,
  output_encoding: compressOutput,
})

export const decompressBody = z.strictObject({
  input: z.string().describe('The compressed data, in input_encoding'),
  input_encoding: z.enum(BYTE_ENCODINGS).default('base64'),
  output_encoding: decompressOutput,
})

export const compressQuery = z.strictObject({
  level: z
    .string()
    .regex(/^-?[0-9]{1,3}$/)
    .transform(Number)
    .optional()
    .describe(level.description!),
  output_encoding: compressOutput,
})

export const decompressQuery = z.strictObject({ output_encoding: decompressOutput })

const algorithmOut = z.enum(ALGORITHMS)

export const compressResult = z.object({
  algorithm: algorithmOut,
  level: z.number().int(),
  output: z.string().describe('The compressed bytes in output_encoding'),
  output_encoding: z.enum(COMPRESS_OUTPUT_ENCODINGS),
  input_bytes: z.number().int(),
  output_bytes: z.number().int(),
})

export const decompressResult = z.object({
  algorithm: algorithmOut,
  output: z.string().describe('The decompressed bytes in output_encoding'),
  output_encoding: z.enum(DECOMPRESS_OUTPUT_ENCODINGS),
  input_bytes: z.number().int(),
  output_bytes: z.number().int(),
  valid_utf8: z.boolean().describe('Whether the decompressed bytes are well-formed UTF-8'),
})
