// The text family's request bodies: the routes' schemas, and what a worker validates a large body with
// (OpDescriptor.body, src/ops/define.ts).
import { z } from 'zod'
import { BYTE_ENCODINGS } from '../types.ts'
import { NORMAL_FORMS, TEXT_FORMATS } from './types.ts'

const FORMAT_HELP =
  'url: percent-encoding as encodeURIComponent; url_form: application/x-www-form-urlencoded value (space as +); ' +
  'html: & < > " \' as entities; decode reads references as an HTML parser reads text content (every HTML5 ' +
  'named reference; the legacy ones such as &copy and &amp also without ";"; &#..; / &#x..; with the ' +
  "standard's table: &#150; is –, &#0; and surrogates are U+FFFD) and never refuses; " +
  'xml: the 5 predefined entities and numeric references; json_string: JSON string escaping without the ' +
  'quotes; js_string: JavaScript string literal escaping; unicode_escape: \\uXXXX for non-ASCII; ' +
  'punycode: IDNA "xn--" labels of a domain; quoted_printable: RFC 2045; rot13. Byte formats (the UTF-8 ' +
  'bytes of the text, or input_encoding/output_encoding): hex; binary; base32 and base32hex (RFC 4648 §6, ' +
  "§7); base32_crockford (Crockford's alphabet, unpadded); base58 (Bitcoin's alphabet, at most 16 KiB); " +
  'ascii85 (btoa/Adobe, "z" for four zero bytes; Python\'s a85encode); z85 (ZeroMQ RFC 32: whole 4-byte groups)'

const format = z.enum(TEXT_FORMATS).describe(FORMAT_HELP)

export const textEncodeBody = z
  .strictObject({
    input: z.string().describe('The text to encode (for a byte format: its bytes, in input_encoding)'),
    format,
    input_encoding: z
      .enum(BYTE_ENCODINGS)
      .optional()
      .describe(
        "Byte formats only: how `input` spells the bytes to encode (default utf8: the text's UTF-8 bytes)",
      ),
    padding: z
      .boolean()
      .optional()
      .describe("base32 and base32hex only: pad with '=' to a multiple of 8 characters (default true)"),
  })
  // named (OpenAPI components, SDK types) as it always was
  .meta({ id: 'TextEncodeRequest' })

export const textDecodeBody = z
  .strictObject({
    input: z.string().describe('The encoded text to decode'),
    format,
    output_encoding: z
      .enum(BYTE_ENCODINGS)
      .optional()
      .describe(
        'Byte formats only: how to answer the decoded bytes (default utf8: as text, refusing bytes that are ' +
          'not UTF-8 at the character they came from; hex, base64 or base64url for any bytes)',
      ),
    strict: z
      .boolean()
      .optional()
      .describe(
        'base32, base32hex, base32_crockford, base58, ascii85, z85 only (default false): take the canonical ' +
          'form only (no whitespace; upper case; complete padding for base32/base32hex; zero unused bits; ' +
          "Ascii85's 'z' for zero groups, no '<~' '~>'), as base64's strict mode",
      ),
  })
  .meta({ id: 'TextDecodeRequest' })

export const normalizeBody = z.strictObject({
  input: z.string(),
  form: z.enum(NORMAL_FORMS).default('NFC').describe('Unicode normalization form (UAX #15)'),
})

export const inspectBody = z.strictObject({ input: z.string() })

export const codecResult = z
  .object({
    output: z.string(),
    format: z.enum(TEXT_FORMATS),
  })
  .meta({ id: 'TextEncodeResult' })

export const normalizeResult = z.object({
  output: z.string(),
  form: z.enum(NORMAL_FORMS),
  changed: z.boolean().describe('Whether the output differs from the input'),
})

const count = z.number().int().min(0)

export const textInspectResult = z.object({
  utf16_units: count.describe('JavaScript string length'),
  code_points: count.describe('Unicode code points (a lone surrogate counts as one)'),
  graphemes: count.describe('User-perceived characters (extended grapheme clusters, UAX #29)'),
  words: count.describe('Word-like segments (UAX #29 word boundaries)'),
  lines: count.describe('Lines; a final line break ends the last line, so "a\\n" is 1 and "" is 0'),
  utf8_bytes: count.describe('Size in UTF-8; a lone surrogate counts as the 3 bytes of U+FFFD'),
  well_formed: z.boolean().describe('No lone surrogates'),
  lone_surrogate_position: count.nullable().describe('UTF-16 index of the first lone surrogate'),
  ascii: z.boolean(),
  has_bom: z.boolean().describe('Starts with U+FEFF'),
  line_endings: z.object({ lf: count, crlf: count, cr: count }),
  control_characters: count.describe('C0/C1 control characters other than tab, LF and CR'),
  format_characters: count.describe('Invisible format characters (General Category Cf)'),
  bidi_controls: count.describe('Bidirectional marks, embeddings, overrides and isolates'),
  normalized: z
    .object({ nfc: z.boolean(), nfd: z.boolean(), nfkc: z.boolean(), nfkd: z.boolean() })
    .describe('Whether the text is already in each normalization form'),
})
