// The id family's request bodies: the routes' schemas, and what a worker validates a large body with
// (OpDescriptor.body, src/ops/define.ts).
import { z } from 'zod'
import { BYTE_ENCODINGS } from '../types.ts'
import {
  MAX_NANOID_COUNT,
  MAX_UUID_COUNT,
  NANOID_ALPHABET,
  NANOID_SIZE,
  UUID_FORMATS,
  UUID_VERSIONS,
} from './types.ts'

export const uuidBody = z.strictObject({
  version: z
    .literal(UUID_VERSIONS)
    .default(4)
    .describe('RFC 9562 version. v7s of one request are strictly increasing; v3/v5 are deterministic.'),
  count: z.number().int().min(1).max(MAX_UUID_COUNT).default(1).describe('How many (must be 1 for v3/v5)'),
  namespace: z
    .string()
    .max(64)
    .optional()
    .describe('v3/v5 only, required there: a UUID, or one of "dns", "url", "oid", "x500" (RFC 9562 §6.6)'),
  name: z.string().optional().describe('v3/v5 only, required there: the name, in name_encoding'),
  name_encoding: z.enum(BYTE_ENCODINGS).default('utf8'),
  format: z
    .enum(UUID_FORMATS)
    .default('standard')
    .describe('standard: lower-case 8-4-4-4-12; compact: 32 hex digits; urn: urn:uuid:…; upper: upper-case'),
})

export const uuidInspectBody = z.strictObject({
  uuid: z.string().describe('8-4-4-4-12 in any case, 32 hex digits, urn:uuid:… or {…}'),
})

export const nanoidBody = z.strictObject({
  size: z.number().int().min(NANOID_SIZE.min).max(NANOID_SIZE.max).default(NANOID_SIZE.default),
  alphabet: z
    .string()
    .min(NANOID_ALPHABET.min)
    .max(NANOID_ALPHABET.max * 2)
    .optional()
    .describe(
      '2–256 distinct characters (code points); default A-Za-z0-9_- (URL-safe). Every character is ' +
        'equally likely (rejection sampling, no modulo bias).',
    ),
  count: z.number().int().min(1).max(MAX_NANOID_COUNT).default(1),
})

export const ulidBody = z.strictObject({
  count: z.number().int().min(1).max(MAX_UUID_COUNT).default(1).describe('How many (as many as UUIDs)'),
  monotonic: z
    .boolean()
    .default(false)
    .describe(
      "The spec's monotonic mode: within one millisecond each ULID is the previous one's randomness plus one, " +
        'so the ULIDs of one request are strictly increasing; otherwise each draws its own 80 random bits',
    ),
})

export const ulidInspectBody = z.strictObject({
  ulid: z
    .string()
    .describe("26 characters of Crockford's Base32, any case; I and L read as 1, O as 0 (U is refused)"),
})

export const uuidResult = z.object({ uuids: z.array(z.string()) })

export const ulidResult = z.object({
  ulids: z.array(z.string()).describe('Canonical ULIDs: 26 upper-case Crockford Base32 characters'),
})

export const ulidInspectResult = z.object({
  ulid: z.string().describe('The canonical spelling: upper case, I and L as 1, O as 0'),
  canonical: z.boolean().describe('Whether the input was already spelled canonically'),
  unix_ms: z.number().int().describe('The 48-bit time: Unix milliseconds'),
  timestamp: z.string().describe('The time, ISO 8601 UTC with milliseconds'),
  randomness: z.string().describe('The last 16 characters: the 80 random bits'),
  randomness_hex: z.string().describe('The 80 random bits, 20 hex digits'),
  uuid: z.string().describe('The same 128 bits spelled as a UUID (lower-case 8-4-4-4-12)'),
})

export const uuidInspectResult = z.object({
  valid: z
    .boolean()
    .describe('RFC 9562 validity: the Nil or Max UUID, or the RFC variant with a defined version (1–8)'),
  normalized: z.string().describe('Lower-case 8-4-4-4-12'),
  input_format: z.enum(['standard', 'compact', 'urn', 'braced']),
  variant: z.enum(['ncs', 'rfc9562', 'microsoft', 'future']).describe('From the leading bits of octet 8'),
  version: z.number().int().nullable().describe('The version field; null when not the RFC 9562 variant'),
  special: z.enum(['nil', 'max']).nullable(),
  description: z.string(),
  timestamp: z.string().optional().describe('v1, v6, v7: the embedded time, ISO 8601 UTC'),
  unix_ms: z.number().int().optional().describe('v7: the 48-bit Unix millisecond timestamp'),
  clock_sequence: z.number().int().optional().describe('v1, v6: the 14-bit clock sequence'),
  node: z.string().optional().describe('v1, v6: the 48-bit node, as aa:bb:cc:dd:ee:ff'),
})

export const nanoidResult = z.object({ ids: z.array(z.string()) })
