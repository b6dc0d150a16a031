import { defineOp } from '../define.ts'
import { fill } from '../worst-case.ts'
import { BASE58_INLINE_CHARS } from './base58.ts'
import { textDecode } from './codecs.ts'
import { codecResult, textDecodeBody } from './schema.ts'

export default defineOp({
  name: 'text.decode',
  family: 'text',
  http: {
    path: '/v1/text/decode',
    operationId: 'textDecode',
    summary: 'Decode text from a format',
    description:
      'Malformed input is refused with ERR_INVALID_ENCODING and details {format, position}. Byte formats ' +
      'answer the decoded bytes as UTF-8 text (bytes that are not UTF-8 are refused at the character they ' +
      'came from) or, with `output_encoding`, in hex, base64 or base64url. Their decoding is lenient by ' +
      "default (whitespace, any case, missing padding, Crockford's I L O and hyphens, Adobe's <~ ~> around " +
      'Ascii85) and takes the canonical form only with `strict`.',
    errors: ['ERR_INVALID_ENCODING', 'ERR_COMPUTE_LIMIT'],
  },
  body: textDecodeBody,
  response: codecResult,
  run: textDecode,
  cost: {
    worst: 'html numeric references of astral characters',
    usPerKiB: 28,
    // base58's conversion grows faster than its length
    heavy: (input) => input.format === 'base58' && input.input.length > BASE58_INLINE_CHARS,
  },
  worst: (bytes) => ({ input: fill('&#x1F600;', bytes), format: 'html' as const }),
  examples: [
    {
      summary: 'Decode a percent-encoded URL component',
      body: { input: 'caf%C3%A9%20cr%C3%A8me', format: 'url' },
      data: { output: 'café crème', format: 'url' },
    },
    {
      summary: 'Decode Z85 (the ZeroMQ RFC 32 vector) to bytes in hex',
      body: { input: 'HelloWorld', format: 'z85', output_encoding: 'hex' },
      data: { output: '864fd26fb559f75b', format: 'z85' },
    },
    {
      summary: 'Lenient Crockford Base32 reads lower case, hyphens, and I L O as 1 1 0',
      body: { input: 'csqp-yrkl-e8', format: 'base32_crockford' },
      data: { output: 'foobar', format: 'base32_crockford' },
    },
    {
      summary: 'Strict decoding takes the canonical form only: here base32 without its padding',
      body: { input: 'MZXW6YTBOI', format: 'base32', strict: true },
      error: {
        type: 'invalid_request',
        message: "Position 10: Missing padding: 6 '=' expected at the end",
        code: 'ERR_INVALID_ENCODING',
        details: { format: 'base32', position: 10 },
      },
    },
    {
      summary: 'Decode quoted-printable text',
      body: { input: 'Gr=C3=BC=C3=9Fe', format: 'quoted_printable' },
      data: { output: 'Grüße', format: 'quoted_printable' },
    },
    {
      summary:
        'Malformed input is refused with the position of the culprit (here a truncated UTF-8 sequence)',
      body: { input: 'caf%C3%A9%20%E2%82', format: 'url' },
      error: {
        type: 'invalid_request',
        message: 'Position 12: The decoded bytes are not valid UTF-8 (ill-formed sequence at byte 6)',
        code: 'ERR_INVALID_ENCODING',
        details: { format: 'url', position: 12 },
      },
    },
  ],
})
