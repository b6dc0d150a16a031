import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { timestampBody } from '../../ops/time/schema.ts'
import { DAY_NAMES, UNITS } from '../../ops/time/types.ts'
import { defineRoute } from '../define-route.ts'

const unixResult = z
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

export async function timeRoutes(app: FastifyInstance): Promise<void> {
  defineRoute(app, {
    method: 'POST',
    url: '/v1/time/timestamp',
    security: 'apiKey',
    family: 'time',
    operationId: 'convertTimestamp',
    summary: 'Convert and describe a timestamp',
    description:
      'Reads a Unix timestamp (s, ms, us or ns, exact when sent as a string), ISO 8601 / RFC 3339 or RFC 2822 ' +
      'text, and answers it in every common form. Calendar fields (day_of_week, day_of_year, iso_week) are ' +
      'those of `timezone`. Supported range: the JS Date range, ±8.64e15 ms around 1970.',
    tags: ['Time'],
    body: timestampBody,
    response: timestampResult,
    errors: ['ERR_INVALID_TIMESTAMP', 'ERR_INVALID_TIMEZONE'],
    op: 'time.timestamp',
  })
}
