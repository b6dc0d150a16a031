import { z } from 'zod'
import { BYTE_ENCODINGS } from '../types.ts'
import { BASE64_VARIANTS, DECODE_VARIANTS } from './types.ts'

// The request and response schemas of POST /v1/base64/encode and /decode: the JSON bodies (validated on the
// event loop for small bodies, on the pool thread for large ones: src/ops/define.ts) and the query
// strings of raw application/octet-stream bodies.
const variant = z
  .enum(BASE64_VARIANTS)
  .default('standard')
  .describe('Alphabet: "standard" (RFC 4648 §4, + and /) or "url" (RFC 4648 §5, - and _)')
const padding = z
  .boolean()
  .optional()
  .describe("Append '=' padding; default true for the standard alphabet, false for url")
const decodeVariant = z
  .enum(DECODE_VARIANTS)
  .default('auto')
  .describe('Alphabet of the input; "auto" detects it (mixing + / with - _ is refused)')
const outputEncoding = z
  .enum(BYTE_ENCODINGS)
  .default('utf8')
  .describe('How to return the decoded bytes; utf8 replaces invalid sequences with U+FFFD')
const strict = z
  .boolean()
  .default(false)
  .describe(
    'Refuse whitespace, missing or partial padding (standard alphabet; url may omit padding) and non-zero ' +
      'trailing bits; otherwise they are tolerated',
  )

function queryBool(description: string) {
  return z.enum(['true', 'false']).describe(description)
}

export const encodeBody = z.strictObject({
  input: z.string().describe('The data to encode, in input_encoding'),
  input_encoding: z.enum(BYTE_ENCODINGS).default('utf8'),
  variant,
  padding,
})

export const encodeQuery = z.strictObject({
  variant,
  padding: queryBool(padding.description!)
    .transform((v) => v === 'true')
    .optional(),
})

export const encodeResult = z.object({
  output: z.string().describe('The Base64 text'),
  variant: z.enum(BASE64_VARIANTS),
})

export const decodeBody = z.strictObject({
  input: z.string().describe('The Base64 or base64url text'),
  variant: decodeVariant,
  output_encoding: outputEncoding,
  strict,
})

export const decodeQuery = z.strictObject({
  variant: decodeVariant,
  output_encoding: outputEncoding,
  strict: queryBool(strict.description!)
    .default('false')
    .transform((v) => v === 'true'),
})

export const decodeResult = z.object({
  output: z.string().describe('The decoded bytes in output_encoding'),
  output_encoding: z.enum(BYTE_ENCODINGS),
  bytes: z.number().int().describe('Number of decoded bytes'),
  valid_utf8: z.boolean().describe('Whether the decoded bytes are well-formed UTF-8'),
  variant: z.enum(BASE64_VARIANTS).describe('The alphabet used (detected when variant was auto)'),
})

// Raw bodies are encoded and decoded as they arrive, on a thread of the plan's pool
// (src/exec/stream-run.ts): a raw answer streams back at constant memory up to the plan's binary limit, a
// JSON answer holds the whole output.
