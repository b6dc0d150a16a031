import { defineOp } from '../define.ts'
import { fill } from '../worst-case.ts'
import { textEncode } from './codecs.ts'
import { codecBody, codecResult } from './schema.ts'

export default defineOp({
  name: 'text.encode',
  family: 'text',
  http: {
    path: '/v1/text/encode',
    operationId: 'textEncode',
    summary: 'Encode text in a format',
    description:
      'Formats that carry UTF-8 bytes or markup (all but json_string, js_string, unicode_escape, rot13) refuse ' +
      'a lone surrogate with ERR_INVALID_ENCODING and details {format, position}.',
    tags: ['Text'],
    errors: ['ERR_INVALID_ENCODING'],
  },
  body: codecBody,
  response: codecResult,
  run: textEncode,
  cost: { worst: 'unicode_escape of astral characters', usPerKiB: 80 },
  // an astral character: 2 UTF-16 units, 4 bytes of UTF-8
  worst: (bytes) => ({ input: fill('😀', bytes / 2), format: 'unicode_escape' as const }),
  examples: [
    {
      summary: 'IDN domain to Punycode',
      body: { input: 'münchen.de', format: 'punycode' },
      data: { output: 'xn--mnchen-3ya.de', format: 'punycode' },
    },
    {
      summary: 'HTML escaping',
      body: { input: '<p title="Tom & Jerry\'s">', format: 'html' },
      data: { output: '&lt;p title=&quot;Tom &amp; Jerry&#39;s&quot;&gt;', format: 'html' },
    },
  ],
})
