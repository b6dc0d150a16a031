import { defineOp } from '../define.ts'
import { BODY_PARSE_COST, bounded } from '../worst-case.ts'
import { ulidInspectBody, ulidInspectResult } from './schema.ts'
import { inspectUlid } from './ulid-inspect.ts'

export default defineOp({
  name: 'id.ulid.inspect',
  family: 'id',
  http: {
    path: '/v1/id/ulid/inspect',
    operationId: 'inspectUlid',
    summary: 'Decode a ULID: its time and randomness',
    description:
      "Reads 26 characters of Crockford's Base32 in any case, I and L as 1 and O as 0 (as Crockford decodes; " +
      '`canonical` says whether the input was already the canonical spelling), and answers the time (Unix ms ' +
      'and ISO 8601), the randomness and the same 128 bits as a UUID. Anything else is ERR_INVALID_ULID with ' +
      'the position: a wrong length, U or another character outside the alphabet, or a first character above ' +
      '7, whose time would overflow 48 bits.',
    errors: ['ERR_INVALID_ULID'],
  },
  body: ulidInspectBody,
  response: ulidInspectResult,
  run: inspectUlid,
  cost: BODY_PARSE_COST,
  worst: (bytes) => bounded({ ulid: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }, bytes),
  examples: [
    {
      summary: "Decode the spec's example ULID",
      body: { ulid: '01ARZ3NDEKTSV4RRFFQ69G5FAV' },
      data: {
        ulid: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
        canonical: true,
        unix_ms: 1469922850259,
        timestamp: '2016-07-30T23:54:10.259Z',
        randomness: 'TSV4RRFFQ69G5FAV',
        randomness_hex: 'd6764c61efb99302bd5b',
        uuid: '01563e3a-b5d3-d676-4c61-efb99302bd5b',
      },
    },
    {
      summary: 'A first character above 7 would overflow the 48-bit time',
      body: { ulid: '81ARZ3NDEKTSV4RRFFQ69G5FAV' },
      error: {
        type: 'invalid_request',
        message: '`ulid` is not a ULID: the first character is at most 7 (a 48-bit time) at position 0',
        code: 'ERR_INVALID_ULID',
        details: { field: 'ulid', position: 0, reason: 'the first character is at most 7 (a 48-bit time)' },
      },
    },
  ],
})
