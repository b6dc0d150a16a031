// The cron family's request body: the route's schema, and what a worker validates a large body with
// (OpSpec.body in src/ops/registry.ts).
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
