import { Cron } from 'croner'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cronParse } from '../../../src/ops/cron/op.ts'

const runs = (expression: string, from = '2024-01-01T00:00:00Z', count = 6, timezone = 'UTC') =>
  cronParse({ expression, from, count, timezone }).runs.map((r) => r.slice(0, 10))

// Issue 15, item 7: Vixie cron's day rule. A day field that starts with * (*, */2, *…) turns the OR of the
// two day fields into an AND; only when neither starts with * does a day matching either field run.
describe('cron: the Vixie day rule', () => {
  it('0 0 */2 * 1 runs on odd days that are Mondays, not on odd days or Mondays', () => {
    expect(runs('0 0 */2 * 1')).toEqual([
      '2024-01-15',
      '2024-01-29',
      '2024-02-05',
      '2024-02-19',
      '2024-03-11',
      '2024-03-25',
    ])
    // the same days written as a range do not start with *: odd days, and Mondays
    expect(runs('0 0 1-31/2 * 1')).toEqual([
      '2024-01-03',
      '2024-01-05',
      '2024-01-07',
      '2024-01-08',
      '2024-01-09',
      '2024-01-11',
    ])
    // either field may start with *
    expect(runs('0 0 1,15 * */3', '2024-01-01T00:00:00Z', 3)).toEqual([
      '2024-05-01',
      '2024-05-15',
      '2024-06-01',
    ])
    expect(runs('0 0 13 * 5', '2024-01-01T00:00:00Z', 3)).toEqual(['2024-01-05', '2024-01-12', '2024-01-13'])
    const r = cronParse({ expression: '0 0 */2 * 1', count: 1 })
    expect(r.day_matching).toBe('both')
    expect(r.description).toBe(
      'At 12:00 AM, on every 2nd day of the month from day 1 through day 31, if it is also Monday',
    )
  })

  // An independent oracle: every day of a year, matched the way Vixie's cron.c does
  // (DOM_STAR || DOW_STAR ? dom && dow : dom || dow), and croner (days joined with "+" = AND where Vixie
  // ANDs them, since croner itself ORs unless a field is exactly *) on UTC and Asia/Tokyo (no DST).
  const dayItem = (min: number, max: number) =>
    fc.oneof(
      fc.integer({ min, max }).map(String),
      fc
        .tuple(fc.integer({ min, max }), fc.integer({ min, max }))
        .map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
      fc
        .tuple(fc.integer({ min, max }), fc.integer({ min, max }), fc.integer({ min: 1, max: max - min + 1 }))
        .map(([a, b, s]) => `${Math.min(a, b)}-${Math.max(a, b)}/${s}`),
      fc.integer({ min: 1, max: max - min + 1 }).map((s) => `*/${s}`),
    )
  const dayField = (min: number, max: number) =>
    fc.oneof(
      { weight: 1, arbitrary: fc.constant('*') },
      {
        weight: 4,
        arbitrary: fc.array(dayItem(min, max), { minLength: 1, maxLength: 3 }).map((a) => a.join(',')),
      },
    )

  function expand(field: string, min: number, max: number): Set<number> {
    const out = new Set<number>()
    for (const item of field.split(',')) {
      const [range, step = '1'] = item.split('/')
      const [a, b] =
        range === '*'
          ? [min, max]
          : range!.includes('-')
            ? range!.split('-').map(Number)
            : [Number(range), Number(range)]
      for (let v = a!; v <= b!; v += Number(step)) out.add(v)
    }
    return out
  }

  it('agrees with a brute-force Vixie oracle and with croner on random day fields', () => {
    fc.assert(
      fc.property(
        dayField(1, 31),
        dayField(0, 6),
        fc.constantFrom('UTC', 'Asia/Tokyo'),
        fc.integer({ min: 2001, max: 2030 }),
        (dom, dow, timezone, year) => {
          const expression = `0 12 ${dom} * ${dow}`
          const from = `${year}-01-01T00:00:00Z`
          const mine = cronParse({ expression, from, count: 8, timezone }).runs.map((r) => r.slice(0, 10))
          // the oracle
          const days = expand(dom, 1, 31)
          const weekdays = expand(dow, 0, 6)
          const and = dom.startsWith('*') || dow.startsWith('*')
          const expected: string[] = []
          for (let d = Date.UTC(year, 0, 1); expected.length < 8; d += 86_400_000) {
            const date = new Date(d)
            const byDom = days.has(date.getUTCDate())
            const byDow = weekdays.has(date.getUTCDay())
            if (and ? byDom && byDow : byDom || byDow) expected.push(date.toISOString().slice(0, 10))
          }
          expect(mine, expression).toEqual(expected)
          // croner
          const both = cronParse({ expression, count: 1 }).day_matching === 'both'
          const theirs = new Cron(`0 12 ${dom} * ${both ? '+' : ''}${dow}`, { timezone, mode: '5-part' })
            .nextRuns(8, new Date(from))
            .map((d) => new Intl.DateTimeFormat('en-CA', { timeZone: timezone }).format(d))
          expect(mine, `croner: ${expression}`).toEqual(theirs)
        },
      ),
      { seed: 15_2026, numRuns: 300 },
    )
  })
})
