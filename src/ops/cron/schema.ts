// The cron family's request body: the route's schema, and what a worker validates a large body with
// (OpDescriptor.body, src/ops/define.ts).
import { z } from 'zod'

export const cronParseBody = z.strictObject({
  expression: z
    .string()
    .max(1024)
    .describe(
      'A cron expression: 5 fields (minute hour day_of_month month day_of_week) or 6 (second first); ' +
        'ranges, steps, lists, names (JAN, MON), L, L-n, LW, nW, nL, n#k, ?, and @yearly/@annually/@monthly/' +
        '@weekly/@daily/@midnight/@hourly',
    ),
  timezone: z.string().min(1).max(64).default('UTC').describe('IANA time zone the schedule runs in'),
  count: z.number().int().min(1).max(100).default(5).describe('How many runs to list'),
  from: z
    .string()
    .max(64)
    .optional()
    .describe('ISO 8601 instant with an offset (Z or ±HH:MM) to count from, exclusive; default now'),
  direction: z
    .enum(['next', 'previous'])
    .default('next')
    .describe('"next": runs after `from`, ascending; "previous": runs before it, most recent first'),
})

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
