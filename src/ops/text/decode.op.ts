import { defineOp } from '../define.ts'
import { fill } from '../worst-case.ts'
import { textDecode } from './codecs.ts'
import { codecBody, codecResult } from './schema.ts'

export default defineOp({
  name: 'text.decode',
  family: 'text',
  http: {
    path: '/v1/text/decode',
    operationId: 'textDecode',
    summary: 'Decode text from a format',
    description: 'Malformed input is refused with ERR_INVALID_ENCODING and details {format, position}.',
    tags: ['Text'],
    errors: ['ERR_INVALID_ENCODING'],
  },
  body: codecBody,
  response: codecResult,
  run: textDecode,
  cost: { worst: 'html numeric references of astral characters', usPerKiB: 28 },
  worst: (bytes) => ({ input: fill('&#x1F600;', bytes), format: 'html' as const }),
  examples: [
    {
      summary: 'Decode a percent-encoded URL component',
      body: { input: 'caf%C3%A9%20cr%C3%A8me', format: 'url' },
      data: { output: 'café crème', format: 'url' },
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
