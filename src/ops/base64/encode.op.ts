import { ownBytes } from '../../lib/own-bytes.ts'
import { defineOp } from '../define.ts'
import { HELD_ANSWER_LIMIT } from '../stream-step.ts'
import { fill } from '../worst-case.ts'
import { base64Encode } from './base64.ts'
import { encodeBody, encodeQuery, encodeResult } from './schema.ts'
import { encodeStep } from './stream.ts'

export default defineOp({
  name: 'base64.encode',
  family: 'base64',
  http: {
    path: '/v1/base64/encode',
    query: encodeQuery,
    operationId: 'base64Encode',
    summary: 'Encode text or bytes as Base64',
    description:
      'JSON body, or raw application/octet-stream bytes (options from the query string), encoded as they ' +
      'arrive. Send Accept: application/octet-stream to get the Base64 text as the raw body, streamed at ' +
      "constant memory up to the plan's binary limit; a raw body answered as JSON may be at most 100 MiB. " +
      'A streamed answer whose body breaks a limit after the first MiB of output is broken off (connection ' +
      'reset on HTTP/1.1, RST_STREAM on HTTP/2) instead of ending normally.',
    errors: ['ERR_INVALID_ENCODING'],
  },
  body: encodeBody,
  response: encodeResult,
  run: base64Encode,
  cost: { worst: 'encode 2-byte UTF-8 text, url variant', usPerKiB: 9 },
  worst: (bytes) => ({ input: fill('é', bytes / 2), variant: 'url' as const }),
  warm: [{ input: 'x'.repeat(4096) }],
  octets: { bytes: (result) => ownBytes(Buffer.from(result.output, 'latin1')) },
  stream: {
    options: ({ query }) => ({ variant: query.variant, padding: query.padding }),
    step: encodeStep,
    jsonBodyLimit: HELD_ANSWER_LIMIT,
  },
  examples: [
    {
      summary: 'Encode text as unpadded base64url',
      body: { input: 'hello, world?', variant: 'url' },
      data: { output: 'aGVsbG8sIHdvcmxkPw', variant: 'url' },
    },
  ],
})
