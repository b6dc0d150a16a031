import { defineOp } from '../define.ts'
import { fill } from '../worst-case.ts'
import { BASE58_INLINE_CHARS } from './base58.ts'
import { textEncode } from './codecs.ts'
import { codecResult, textEncodeBody } from './schema.ts'

export default defineOp({
  name: 'text.encode',
  family: 'text',
  http: {
    path: '/v1/text/encode',
    operationId: 'textEncode',
    summary: 'Encode text in a format',
    description:
      'Formats that carry UTF-8 bytes or markup (all but json_string, js_string, unicode_escape, rot13) refuse ' +
      'a lone surrogate with ERR_INVALID_ENCODING and details {format, position}. Byte formats (hex, binary, ' +
      'base32, base32hex, base32_crockford, base58, ascii85, z85) encode the UTF-8 bytes of the text, or the ' +
      'bytes `input_encoding` spells (hex, base64, base64url); base32 and base32hex pad unless `padding` is ' +
      'false. z85 takes whole 4-byte groups only (ERR_INVALID_ENCODING otherwise); base58 at most 64 KiB ' +
      '(ERR_COMPUTE_LIMIT past it). An option given for a format that does not take it is ERR_VALIDATION.',
    errors: ['ERR_INVALID_ENCODING', 'ERR_COMPUTE_LIMIT'],
  },
  body: textEncodeBody,
  response: codecResult,
  run: textEncode,
  cost: {
    worst: 'unicode_escape of astral characters',
    usPerKiB: 80,
    // base58's conversion grows faster than its length
    heavy: (input) => input.format === 'base58' && input.input.length > BASE58_INLINE_CHARS,
  },
  // an astral character: 2 UTF-16 units, 4 bytes of UTF-8
  worst: (bytes) => ({ input: fill('😀', bytes / 2), format: 'unicode_escape' as const }),
  examples: [
    {
      summary: 'IDN domain to Punycode',
      body: { input: 'münchen.de', format: 'punycode' },
      data: { output: 'xn--mnchen-3ya.de', format: 'punycode' },
    },
    {
      summary: 'Base32 (RFC 4648 §6) of the UTF-8 bytes of a text, padded',
      body: { input: 'foobar', format: 'base32' },
      data: { output: 'MZXW6YTBOI======', format: 'base32' },
    },
    {
      summary: 'Base58 (Bitcoin) of bytes given in hex: each leading zero byte is a "1"',
      body: {
        input: '00eb15231dfceb60925886b67d065299925915aeb172c06647',
        input_encoding: 'hex',
        format: 'base58',
      },
      data: { output: '1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L', format: 'base58' },
    },
    {
      summary: 'Z85 takes whole groups of 4 bytes only (ZeroMQ RFC 32)',
      body: { input: 'hello', format: 'z85' },
      error: {
        type: 'invalid_request',
        message: 'Z85 encodes whole groups of 4 bytes; these 5 bytes leave 1 over (ZeroMQ RFC 32)',
        code: 'ERR_INVALID_ENCODING',
        details: { format: 'z85', position: 4 },
      },
    },
    {
      summary: 'HTML escaping',
      body: { input: '<p title="Tom & Jerry\'s">', format: 'html' },
      data: { output: '&lt;p title=&quot;Tom &amp; Jerry&#39;s&quot;&gt;', format: 'html' },
    },
  ],
})
