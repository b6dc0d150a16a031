// The text family's request bodies: the routes' schemas, and what a worker validates a large body with
// (OpSpec.body in src/ops/registry.ts).
import { z } from 'zod'
import { NORMAL_FORMS, TEXT_FORMATS } from './types.ts'

const FORMAT_HELP =
  'url: percent-encoding as encodeURIComponent; url_form: application/x-www-form-urlencoded value (space as +); ' +
  'html: & < > " \' as entities; decode reads references as an HTML parser reads text content (every HTML5 ' +
  'named reference; the legacy ones such as &copy and &amp also without ";"; &#..; / &#x..; with the ' +
  "standard's table: &#150; is –, &#0; and surrogates are U+FFFD) and never refuses; " +
  'xml: the 5 predefined entities and numeric references; json_string: JSON string escaping without the ' +
  'quotes; js_string: JavaScript string literal escaping; unicode_escape: \\uXXXX for non-ASCII; hex and ' +
  'binary: the UTF-8 bytes; punycode: IDNA "xn--" labels of a domain; quoted_printable: RFC 2045; rot13'

export const codecBody = z.strictObject({
  input: z.string().describe('The text to encode, or the encoded text to decode'),
  format: z.enum(TEXT_FORMATS).describe(FORMAT_HELP),
})

export const normalizeBody = z.strictObject({
  input: z.string(),
  form: z.enum(NORMAL_FORMS).default('NFC').describe('Unicode normalization form (UAX #15)'),
})

export const inspectBody = z.strictObject({ input: z.string() })
