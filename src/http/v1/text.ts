import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { TEXT_FORMATS } from '../../ops/text/codecs.ts'
import { NORMAL_FORMS } from '../../ops/text/normalize.ts'
import { defineRoute } from '../define-route.ts'

const FORMAT_HELP =
  'url: percent-encoding as encodeURIComponent; url_form: application/x-www-form-urlencoded value (space as +); ' +
  'html: & < > " \' as entities; decode reads references as an HTML parser reads text content (every HTML5 ' +
  'named reference; the legacy ones such as &copy and &amp also without ";"; &#..; / &#x..; with the ' +
  "standard's table: &#150; is –, &#0; and surrogates are U+FFFD) and never refuses; " +
  'xml: the 5 predefined entities and numeric references; json_string: JSON string escaping without the ' +
  'quotes; js_string: JavaScript string literal escaping; unicode_escape: \\uXXXX for non-ASCII; hex and ' +
  'binary: the UTF-8 bytes; punycode: IDNA "xn--" labels of a domain; quoted_printable: RFC 2045; rot13'

const codecBody = z.strictObject({
  input: z.string().describe('The text to encode, or the encoded text to decode'),
  format: z.enum(TEXT_FORMATS).describe(FORMAT_HELP),
})

const codecResult = z.object({
  output: z.string(),
  format: z.enum(TEXT_FORMATS),
})

const normalizeBody = z.strictObject({
  input: z.string(),
  form: z.enum(NORMAL_FORMS).default('NFC').describe('Unicode normalization form (UAX #15)'),
})

const normalizeResult = z.object({
  output: z.string(),
  form: z.enum(NORMAL_FORMS),
  changed: z.boolean().describe('Whether the output differs from the input'),
})

const count = z.number().int().min(0)

const inspectResult = z.object({
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

export async function textRoutes(app: FastifyInstance): Promise<void> {
  defineRoute(app, {
    method: 'POST',
    url: '/v1/text/encode',
    security: 'apiKey',
    family: 'text',
    operationId: 'textEncode',
    summary: 'Encode text in a format',
    description:
      'Formats that carry UTF-8 bytes or markup (all but json_string, js_string, unicode_escape, rot13) refuse ' +
      'a lone surrogate with ERR_INVALID_ENCODING and details {format, position}.',
    tags: ['Text'],
    body: codecBody,
    response: codecResult,
    errors: ['ERR_INVALID_ENCODING'],
    handler: ({ body, run }) => run('text.encode', body),
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/text/decode',
    security: 'apiKey',
    family: 'text',
    operationId: 'textDecode',
    summary: 'Decode text from a format',
    description: 'Malformed input is refused with ERR_INVALID_ENCODING and details {format, position}.',
    tags: ['Text'],
    body: codecBody,
    response: codecResult,
    errors: ['ERR_INVALID_ENCODING'],
    handler: ({ body, run }) => run('text.decode', body),
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/text/normalize',
    security: 'apiKey',
    family: 'text',
    operationId: 'textNormalize',
    summary: 'Unicode-normalize text',
    tags: ['Text'],
    body: normalizeBody,
    response: normalizeResult,
    handler: ({ body, run }) => run('text.normalize', body),
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/text/inspect',
    security: 'apiKey',
    family: 'text',
    operationId: 'textInspect',
    summary: 'Count and check text',
    tags: ['Text'],
    body: z.strictObject({ input: z.string() }),
    response: inspectResult,
    handler: ({ body, run }) => run('text.inspect', body),
  })
}
