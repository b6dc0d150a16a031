import { ownBytes } from '../../lib/own-bytes.ts'
import { defineOp } from '../define.ts'
import { HELD_ANSWER_LIMIT } from '../stream-step.ts'
import { fill } from '../worst-case.ts'
import { base64Decode } from './base64.ts'
import { decodeBody, decodeQuery, decodeResult } from './schema.ts'
import { decodeStep } from './stream.ts'

export default defineOp({
  name: 'base64.decode',
  family: 'base64',
  http: {
    path: '/v1/base64/decode',
    query: decodeQuery,
    operationId: 'base64Decode',
    summary: 'Decode Base64 or base64url',
    description:
      'JSON body, or the Base64 text as a raw application/octet-stream body (options from the query ' +
      'string; error positions are then byte offsets), decoded as it arrives. Send Accept: ' +
      'application/octet-stream to get the decoded bytes as the raw body, streamed at constant memory up to the ' +
      "plan's binary limit; a raw body answered as JSON may be at most 100 MiB. Errors found before the first " +
      'MiB of output are answered with their status; a later one (e.g. a bad character deep in a large body) ' +
      'breaks the answer off (connection reset on HTTP/1.1, RST_STREAM on HTTP/2) instead of ending it normally.',
    errors: ['ERR_INVALID_BASE64'],
  },
  body: decodeBody,
  response: decodeResult,
  run: base64Decode,
  cost: { worst: 'encode 2-byte UTF-8 text, url variant', usPerKiB: 9 },
  worst: (bytes) => ({ input: fill('QUJD', bytes), variant: 'url' as const }),
  warm: [{ input: Buffer.from('x'.repeat(4096)).toString('base64') }],
  // a raw-bytes answer asks for Base64, decoded once more where the op ran
  octets: {
    with: { output_encoding: 'base64' },
    bytes: (result) => ownBytes(Buffer.from(result.output, 'base64')),
  },
  stream: {
    options: ({ query }) => ({
      variant: query.variant,
      strict: query.strict,
      output_encoding: query.output_encoding,
    }),
    step: decodeStep,
    jsonBodyLimit: HELD_ANSWER_LIMIT,
  },
  examples: [
    {
      summary: 'Decode (the alphabet is detected; bytes that are not UTF-8 can be asked for as hex)',
      body: { input: '3q2+7w==', output_encoding: 'hex' },
      data: {
        output: 'deadbeef',
        output_encoding: 'hex',
        bytes: 4,
        valid_utf8: false,
        variant: 'standard',
      },
    },
  ],
})
