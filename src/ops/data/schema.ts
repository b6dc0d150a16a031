import { z } from 'zod'
import { CSV_NESTED, CSV_TYPES, DATA_FORMATS, YAML_DOCUMENTS } from './types.ts'

// The request and response schemas of POST /v1/data/convert. Options carry no defaults here: one that is
// given must apply to the conversion (convert.ts refuses it otherwise), so an absent one stays absent.

const format = (side: string) =>
  z
    .enum(DATA_FORMATS)
    .describe(
      `The format ${side}: "json" (RFC 8259), "yaml" (YAML 1.2, core schema), "toml" (TOML 1.0.0) or "csv" (RFC 4180)`,
    )

const oneCharacter = z
  .string()
  .length(1)
  .regex(/^[^\r\n]$/, 'must be one character other than CR and LF')

export const convertOptions = z
  .strictObject({
    indent: z
      .union([z.number().int().min(0).max(8), z.literal('\t')])
      .optional()
      .describe(
        'JSON and YAML output: spaces per level, default 2. JSON: 0 writes one line, "\\t" tabs; YAML: 1–8',
      ),
    documents: z
      .enum(YAML_DOCUMENTS)
      .optional()
      .describe(
        'YAML: "single" (default) reads one document (a stream of several is refused) and writes one; ' +
          '"stream" reads every document of the stream into an array, and writes an array as a stream',
      ),
    delimiter: oneCharacter.optional().describe('CSV: the field delimiter, default ","'),
    quote: oneCharacter.optional().describe("CSV: the quote character, default '\"'"),
    header: z
      .boolean()
      .optional()
      .describe(
        'CSV: the first record names the fields (default true): records read as objects, objects written under a header row',
      ),
    types: z
      .enum(CSV_TYPES)
      .optional()
      .describe(
        'CSV input: "strings" (default) keeps every field a string; "infer" reads an unquoted field that is a JSON ' +
          'number as that number (exactly), true/false as booleans and an empty one as null',
      ),
    nested: z
      .enum(CSV_NESTED)
      .optional()
      .describe(
        'CSV output: an object or array inside a row is "refuse"d (default, ERR_UNREPRESENTABLE) or "flatten"ed ' +
          'into columns named by its path joined with dots (a.b, tags.0)',
      ),
  })
  .describe(
    'Options, each for the formats it names; one for a format the conversion does not involve is refused',
  )

export const convertBody = z.strictObject({
  input: z.string().describe('The document to convert, as text'),
  from: format('of input'),
  to: format('to write'),
  options: convertOptions.optional(),
})

export const convertResult = z.object({
  output: z.string().describe('The converted document'),
  bytes: z.number().int().describe('Length of output in UTF-8 bytes'),
})

// The raw-body form (POST /v1/data/convert?from=yaml&to=json with the document as the body): the formats
// and the options from the query string, as the JSON body would name them. The route validates its query
// for a JSON body too, which ignores it, so from and to are optional here and required by the stream
// (stream.ts).
const flag = z.enum(['true', 'false']).transform((v) => v === 'true')

export const convertQuery = z
  .strictObject({
    from: format('of a raw body (required with one)').optional(),
    to: format('to write (required with a raw body)').optional(),
    indent: z
      .union([
        z.literal('\t'),
        z
          .string()
          .regex(/^[0-8]$/)
          .transform(Number),
      ])
      .optional()
      .describe('As options.indent'),
    documents: z.enum(YAML_DOCUMENTS).optional().describe('As options.documents'),
    delimiter: oneCharacter.optional().describe('As options.delimiter'),
    quote: oneCharacter.optional().describe('As options.quote'),
    header: flag.optional().describe('As options.header: "true" or "false"'),
    types: z.enum(CSV_TYPES).optional().describe('As options.types'),
    nested: z.enum(CSV_NESTED).optional().describe('As options.nested'),
  })
  .transform(({ from, to, ...options }) => ({ from, to, options }))
