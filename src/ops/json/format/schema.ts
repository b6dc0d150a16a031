import { z } from 'zod'
import { FORMAT_MODES } from './format.ts'

// The request and response schemas of POST /v1/json/format, shared by the route and by jobs (json.format
// jobs take the JSON body's schema as their params).
const mode = z
  .enum(FORMAT_MODES)
  .default('pretty')
  .describe('"pretty": one value per line, indented; "minify": no whitespace at all')
const indentDescription =
  'Spaces per level (0–8; 0 puts every value on its own line without indentation) or "\\t" for tabs; pretty only'
const sortKeysDescription =
  'Sort object members by key in Unicode code point order (integer-like keys are strings too); members ' +
  'with the same key keep their order'

export const formatBody = z.strictObject({
  input: z
    .string()
    .describe(
      'The JSON text to format, as a string (RFC 8259; any top-level value). Numbers, escapes, key order ' +
        'and duplicate keys are kept exactly as written',
    ),
  mode,
  indent: z
    .union([z.number().int().min(0).max(8), z.literal('\t')])
    .default(2)
    .describe(indentDescription),
  sort_keys: z.boolean().default(false).describe(sortKeysDescription),
})

export const formatQuery = z.strictObject({
  mode,
  indent: z
    .union([
      z.literal('\t'),
      z
        .string()
        .regex(/^[0-8]$/)
        .transform(Number),
    ])
    .default(2)
    .describe(indentDescription),
  sort_keys: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe(sortKeysDescription),
})

const warning = z.object({
  code: z
    .enum(['duplicate_key', 'byte_order_mark', 'more_duplicate_keys'])
    .describe(
      'duplicate_key: a key repeated within one object (kept in the output); byte_order_mark: a leading BOM, dropped; more_duplicate_keys: how many duplicates past the first 100 are not listed',
    ),
  message: z.string(),
  key: z.string().optional().describe('The repeated key, decoded'),
  line: z.number().int().describe('1-based line of the input'),
  column: z.number().int().describe('1-based column, in UTF-16 code units'),
  offset: z.number().int().describe('0-based offset into the input, in UTF-16 code units'),
})

export const formatResult = z.object({
  output: z.string().describe('The formatted JSON text'),
  bytes: z.number().int().describe('Length of output in UTF-8 bytes'),
  warnings: z.array(warning).optional().describe('Present when the input had duplicate keys or a BOM'),
})
