// The time family's request body: the route's schema, and what a worker validates a large body with
// (OpSpec.body in src/ops/registry.ts).
import { z } from 'zod'
import { UNITS } from './types.ts'

const MAX_TEXT = 256

const instant = z.union([
  z.number().describe('A Unix timestamp. Above 2^53 a JSON number loses digits: send big values as strings.'),
  z
    .string()
    .max(MAX_TEXT)
    .describe(
      'A Unix timestamp as a decimal string (exact to the nanosecond; fractions and exponents allowed), "now", ' +
        'ISO 8601 / RFC 3339 (YYYY-MM-DD[Thh:mm[:ss[.f]]][Z|±hh:mm], YYYY-MM, YYYY-DDD, YYYY-Www-D, ' +
        '±YYYYYY-…, basic YYYYMMDDThhmmssZ) or RFC 2822 / 5322 ("Tue, 1 Jul 2003 10:52:37 +0200", ' +
        'comments and obsolete zones included: "Tue, 14 Nov 2023 22:13:20 GMT (UTC)").',
    ),
])

export const timestampBody = z.strictObject({
  value: instant
    .optional()
    .describe(
      'The instant; default now. Date-times without an offset are wall-clock times in `timezone` ' +
        '(a skipped time moves forward past the gap, a repeated time is its first occurrence).',
    ),
  unit: z
    .enum(['auto', ...UNITS])
    .default('auto')
    .describe(
      'Unit of a numeric value. auto: |v| < 1e11 → s, < 1e14 → ms, < 1e17 → us, else ns (each covers ' +
        '1973…5138; give the unit for other dates). Must be auto for date strings.',
    ),
  timezone: z
    .string()
    .max(MAX_TEXT)
    .default('UTC')
    .describe(
      'IANA time zone ("America/New_York", case-insensitive) or a fixed offset ("+05:30", "-0800", "+05")',
    ),
  at: instant
    .optional()
    .describe('Reference instant for `relative` (default now); read like `value` with unit auto'),
})
