import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { codecBody, inspectBody, normalizeBody } from '../../ops/text/schema.ts'
import { NORMAL_FORMS, TEXT_FORMATS } from '../../ops/text/types.ts'
import { defineRoute } from '../define-route.ts'

const codecResult = z.object({
  output: z.string(),
  format: z.enum(TEXT_FORMATS),
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
    op: 'text.encode',
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
    op: 'text.decode',
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/text/normalize',
    security: 'apiKey',
    family: 'text',
    operationId: 'textNormalize',
    summary: 'Unicode-normalize text',
    description:
      'Normalizes to NFC (the default), NFD, NFKC or NFKD (UAX #15) and says whether that changed the text. ' +
      'Compatibility forms (NFKC, NFKD) also fold look-alikes such as ligatures and full-width letters.',
    tags: ['Text'],
    body: normalizeBody,
    response: normalizeResult,
    op: 'text.normalize',
  })

  defineRoute(app, {
    method: 'POST',
    url: '/v1/text/inspect',
    security: 'apiKey',
    family: 'text',
    operationId: 'textInspect',
    summary: 'Count and check text',
    description:
      'Counts UTF-16 units, code points, grapheme clusters, words, lines and UTF-8 bytes, and reports what ' +
      'can hide in text: lone surrogates, a BOM, mixed line endings, control, format and bidirectional ' +
      'characters, and whether the text is already in each normalization form.',
    tags: ['Text'],
    body: inspectBody,
    response: inspectResult,
    op: 'text.inspect',
  })
}
