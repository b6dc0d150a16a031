import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { cronParseBody } from '../../ops/cron/schema.ts'
import { defineRoute } from '../define-route.ts'

const fieldList = z.array(z.number().int())

export const cronParseResult = z.object({
  expression: z.string().describe('The expression as sent'),
  normalized: z
    .string()
    .describe(
      'Canonical form: macros expanded, names as numbers, 7 → 0, ? → *, items sorted, duplicates dropped',
    ),
  has_seconds: z.boolean(),
  fields: z
    .object({
      second: fieldList.optional().describe('Only for 6-field expressions'),
      minute: fieldList,
      hour: fieldList,
      day_of_month: fieldList.describe('Plain days only; L and W days are listed in `special`'),
      month: fieldList,
      day_of_week: fieldList.describe('0 = Sunday … 6 = Saturday; nL and n# days are listed in `special`'),
    })
    .describe('Each field expanded to its sorted list of values'),
  special: z
    .array(
      z.object({
        field: z.enum(['day_of_month', 'day_of_week']),
        token: z.string().describe('e.g. L, L-3, LW, 15W, 5L, 1#2'),
        description: z.string(),
      }),
    )
    .describe('Day tokens whose days depend on the month'),
  day_matching: z
    .enum(['every_day', 'day_of_month', 'day_of_week', 'either', 'both'])
    .describe(
      'How the day fields combine, as in Vixie cron: "either" when neither starts with * (a day matching one ' +
        'of them runs: "0 0 1-31/2 * 1" runs on odd days and on Mondays); "both" when one starts with * but ' +
        'neither is exactly * or ? (a day must match both: "0 0 */2 * 1" runs on odd days that are Mondays); ' +
        'otherwise only the field that is not * restricts',
    ),
  description: z.string().describe('English description'),
  timezone: z
    .string()
    .describe(
      'The time zone used, by its IANA primary name (Asia/Calcutta → Asia/Kolkata, US/Eastern → America/New_York)',
    ),
  direction: z.enum(['next', 'previous']),
  from: z.string().describe('The reference instant used, in the time zone'),
  runs: z
    .array(z.string())
    .describe('Run instants, ISO 8601 with the zone offset; fewer than `count` only at the years 1 or 9999'),
})

export async function cronRoutes(app: FastifyInstance): Promise<void> {
  defineRoute(app, {
    method: 'POST',
    url: '/v1/cron/parse',
    security: 'apiKey',
    family: 'cron',
    op: 'cron.parse',
    operationId: 'parseCron',
    summary: 'Parse a cron expression, describe it and list its runs',
    description:
      'Runs follow Vixie cron in the given zone. A job with no * or step in its hour field is fixed-time: a time ' +
      'in a spring-forward gap runs once, when the gap ends; a time repeated by a fall-back runs only at its ' +
      'first occurrence. Other jobs run at every real instant that matches (none inside a gap, both in an ' +
      'overlap). An expression that can never match (e.g. 0 0 30 2 *) is refused with ERR_INVALID_CRON.',
    tags: ['Cron'],
    body: cronParseBody,
    response: cronParseResult,
    errors: ['ERR_INVALID_CRON', 'ERR_INVALID_TIMEZONE', 'ERR_INVALID_TIMESTAMP'],
  })
}
