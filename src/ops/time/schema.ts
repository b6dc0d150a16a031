// The time family's request body: the route's schema, and what a worker validates a large body with
// (OpDescriptor.body, src/ops/define.ts).
import { z } from 'zod'
import { DAY_NAMES, UNITS } from './types.ts'

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

export const unixResult = z
  .object({
    s: z.string(),
    ms: z.string(),
    us: z.string(),
    ns: z.string(),
  })
  .describe('Integer strings, floored toward negative infinity; ns is exact')

export const timestampResult = z.object({
  unix: unixResult,
  iso8601: z
    .string()
    .describe('UTC, 3, 6 or 9 fraction digits (the fewest that are exact), e.g. 2024-03-10T07:00:00.000Z'),
  rfc2822: z
    .string()
    .nullable()
    .describe('In `timezone`, whole seconds; null for years before 1900 or after 9999'),
  rfc3339_local: z.string().describe('In `timezone` with its offset; a fraction only when non-zero'),
  timezone: z
    .string()
    .describe(
      'The zone by its IANA primary name (Asia/Calcutta → Asia/Kolkata, US/Eastern → America/New_York)',
    ),
  utc_offset: z.string().describe('"+05:30"; with seconds for historic local mean time'),
  utc_offset_seconds: z.number().int(),
  relative: z.string().describe('English, relative to `at`: "just now", "in 5 minutes", "3 hours ago"'),
  day_of_week: z.enum(DAY_NAMES),
  iso_day_of_week: z.number().int().min(1).max(7).describe('1 = Monday … 7 = Sunday'),
  day_of_year: z.number().int().min(1).max(366),
  iso_week: z
    .string()
    .describe('ISO week date week, e.g. 2024-W10 (its year can differ from the calendar year)'),
  detected_unit: z
    .enum(UNITS)
    .nullable()
    .describe('Unit used for a numeric value; null for date strings and now'),
  input_format: z.enum(['unix', 'iso8601', 'rfc2822', 'now']),
  warnings: z.array(z.string()),
})
