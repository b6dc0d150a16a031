import { defineOp } from '../define.ts'
import { BODY_PARSE_COST, bounded } from '../worst-case.ts'
import { timestampBody, timestampResult } from './schema.ts'
import { timestamp } from './timestamp.ts'

export default defineOp({
  name: 'time.timestamp',
  family: 'time',
  http: {
    path: '/v1/time/timestamp',
    operationId: 'convertTimestamp',
    summary: 'Convert and describe a timestamp',
    description:
      'Reads a Unix timestamp (s, ms, us or ns, exact when sent as a string), ISO 8601 / RFC 3339 or RFC 2822 ' +
      'text, and answers it in every common form. Calendar fields (day_of_week, day_of_year, iso_week) are ' +
      'those of `timezone`. Supported range: the JS Date range, ±8.64e15 ms around 1970.',
    errors: ['ERR_INVALID_TIMESTAMP', 'ERR_INVALID_TIMEZONE'],
  },
  body: timestampBody,
  response: timestampResult,
  run: (input) => timestamp(input),
  cost: BODY_PARSE_COST,
  worst: (bytes) => bounded({ value: '1710055800123', timezone: 'America/New_York' }, bytes),
  examples: [
    {
      summary:
        'A millisecond timestamp, seen from New York (the unit is detected; `relative` is measured from `at`)',
      body: { value: '1710055800123', timezone: 'America/New_York', at: '2024-03-10T12:00:00Z' },
      data: {
        unix: { s: '1710055800', ms: '1710055800123', us: '1710055800123000', ns: '1710055800123000000' },
        iso8601: '2024-03-10T07:30:00.123Z',
        rfc2822: 'Sun, 10 Mar 2024 03:30:00 -0400',
        rfc3339_local: '2024-03-10T03:30:00.123-04:00',
        timezone: 'America/New_York',
        utc_offset: '-04:00',
        utc_offset_seconds: -14400,
        relative: '4 hours ago',
        day_of_week: 'Sunday',
        iso_day_of_week: 7,
        day_of_year: 70,
        iso_week: '2024-W10',
        detected_unit: 'ms',
        input_format: 'unix',
        warnings: [],
      },
    },
    {
      summary: 'An RFC 2822 date (as in e-mail headers), converted to Kolkata time',
      body: { value: 'Tue, 1 Jul 2003 10:52:37 +0200', timezone: 'Asia/Kolkata', at: '2003-07-04T00:00:00Z' },
      data: {
        unix: { s: '1057049557', ms: '1057049557000', us: '1057049557000000', ns: '1057049557000000000' },
        iso8601: '2003-07-01T08:52:37.000Z',
        rfc2822: 'Tue, 01 Jul 2003 14:22:37 +0530',
        rfc3339_local: '2003-07-01T14:22:37+05:30',
        timezone: 'Asia/Kolkata',
        utc_offset: '+05:30',
        utc_offset_seconds: 19800,
        relative: '2 days ago',
        day_of_week: 'Tuesday',
        iso_day_of_week: 2,
        day_of_year: 182,
        iso_week: '2003-W27',
        detected_unit: null,
        input_format: 'rfc2822',
        warnings: [],
      },
    },
  ],
})
