import { describe, expect, it } from 'vitest'
import { cronParse } from '../../../src/ops/cron/op.ts'
import { parseCron } from '../../../src/ops/cron/parse.ts'

const FROM = '2024-01-01T00:00:00Z'
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i)

function parse(expression: string) {
  return cronParse({ expression, from: FROM, count: 1 })
}

function failure(expression: string): unknown {
  try {
    cronParse({ expression, from: FROM })
  } catch (err) {
    return err
  }
  throw new Error(`expected ${expression} to be refused`)
}

function refused(expression: string, field: string, position: number) {
  const err = failure(expression)
  expect(err).toMatchObject({ code: 'ERR_INVALID_CRON', details: { field, position } })
  return (err as { details: { reason: string } }).details.reason
}

describe('cron fields', () => {
  it('expands a 5-field expression and leaves `second` out', () => {
    const r = parse('*/15 9-17 * * MON-FRI')
    expect(r.has_seconds).toBe(false)
    expect(r.fields).toEqual({
      minute: [0, 15, 30, 45],
      hour: range(9, 17),
      day_of_month: range(1, 31),
      month: range(1, 12),
      day_of_week: [1, 2, 3, 4, 5],
    })
    expect(r.normalized).toBe('*/15 9-17 * * 1-5')
    expect(r.day_matching).toBe('day_of_week')
  })

  it('reads 6 fields with seconds first', () => {
    const r = parse('30 */20 1 * * *')
    expect(r.has_seconds).toBe(true)
    expect(r.fields.second).toEqual([30])
    expect(r.fields.minute).toEqual([0, 20, 40])
    expect(r.fields.hour).toEqual([1])
  })

  it('steps: */n, a-b/n and a/n (to the end of the range)', () => {
    expect(parse('5-20/5 * * * *').fields.minute).toEqual([5, 10, 15, 20])
    expect(parse('10/5 * * * *').fields.minute).toEqual([10, 15, 20, 25, 30, 35, 40, 45, 50, 55])
    expect(parse('0 */6 * * *').fields.hour).toEqual([0, 6, 12, 18])
    expect(parse('0 0 */10 * *').fields.day_of_month).toEqual([1, 11, 21, 31])
    expect(parse('0 0 1 */4 *').fields.month).toEqual([1, 5, 9])
    expect(parse('0 0 * * 1/2').fields.day_of_week).toEqual([1, 3, 5])
  })

  it('names, case-insensitive, and 7 as Sunday', () => {
    const r = parse('0 0 * jan,Mar-MAY sun,Fri')
    expect(r.fields.month).toEqual([1, 3, 4, 5])
    expect(r.fields.day_of_week).toEqual([0, 5])
    expect(r.normalized).toBe('0 0 * 1,3-5 0,5')
    expect(parse('0 0 * * 7').fields.day_of_week).toEqual([0])
    expect(parse('0 0 * * 7').normalized).toBe('0 0 * * 0')
    expect(parse('0 0 * * 5-7').fields.day_of_week).toEqual([0, 5, 6])
    expect(parse('0 0 * * 5-7').normalized).toBe('0 0 * * 0,5-6')
    expect(parse('0 0 * * 0-7').normalized).toBe('0 0 * * 0-6')
  })

  it('normalizes: ? → *, leading zeros, sorted items, duplicates dropped', () => {
    expect(parse('0 0 ? * ?').normalized).toBe('0 0 * * *')
    expect(parse('05 007 * * *').normalized).toBe('5 7 * * *')
    expect(parse('30,5,10-12,5 * * * *').normalized).toBe('5,10-12,30 * * * *')
    expect(parse('0 0 * * FRIL').normalized).toBe('0 0 * * 5L')
    expect(parse('0 0 * * SUN#1,7#2').normalized).toBe('0 0 * * 0#1,0#2')
    expect(parse('0 0 l-0 * *').normalized).toBe('0 0 L * *')
  })

  it('macros expand to their 5-field forms', () => {
    const expected: Record<string, string> = {
      '@yearly': '0 0 1 1 *',
      '@annually': '0 0 1 1 *',
      '@monthly': '0 0 1 * *',
      '@weekly': '0 0 * * 0',
      '@daily': '0 0 * * *',
      '@midnight': '0 0 * * *',
      '@hourly': '0 * * * *',
      '@DAILY': '0 0 * * *',
    }
    for (const [macro, form] of Object.entries(expected)) {
      const r = parse(macro)
      expect(r.normalized, macro).toBe(form)
      expect(r.expression).toBe(macro)
      expect(r.has_seconds).toBe(false)
    }
  })

  it('L, W and # days are listed in `special`, plain days in the field', () => {
    const dom = parse('0 0 1,L,15W,L-3,LW * *')
    expect(dom.fields.day_of_month).toEqual([1])
    expect(dom.special.map((s) => s.token)).toEqual(['15W', 'L', 'L-3', 'LW'])
    expect(dom.special.every((s) => s.field === 'day_of_month' && s.description.length > 0)).toBe(true)
    const dow = parse('0 0 * * 5L,MON#2,3')
    expect(dow.fields.day_of_week).toEqual([3])
    expect(dow.special).toEqual([
      { field: 'day_of_week', token: '1#2', description: 'the second Monday of the month' },
      { field: 'day_of_week', token: '5L', description: 'the last Friday of the month' },
    ])
    expect(parse('0 0 L * *').fields.day_of_month).toEqual([])
  })

  it('day_matching says which day fields restrict (Vixie semantics)', () => {
    expect(parse('0 0 * * *').day_matching).toBe('every_day')
    expect(parse('0 0 13 * *').day_matching).toBe('day_of_month')
    expect(parse('0 0 ? * FRI').day_matching).toBe('day_of_week')
    expect(parse('0 0 13 * FRI').day_matching).toBe('either')
    // Vixie: a day field starting with * makes the pair match both (odd days that are Mondays), even */2;
    // one written as a range does not (odd days, and Mondays)
    expect(parse('0 0 */2 * MON').day_matching).toBe('both')
    expect(parse('0 0 1-31/2 * MON').day_matching).toBe('either')
    expect(parse('0 0 1 * */2').day_matching).toBe('both')
    expect(parse('0 0 */2 * *').day_matching).toBe('day_of_month')
    expect(parse('0 0 */1 * */1').day_matching).toBe('both')
    // normalizing keeps the reading: a */n that was not first is spelled as its range
    expect(parse('0 0 5,*/2 * MON').normalized).toBe('0 0 1-31/2,5 * 1')
    expect(parse('0 0 5,*/2 * MON').day_matching).toBe('either')
    expect(parse('0 0 */2,5 * MON').normalized).toBe('0 0 */2,5 * 1')
  })

  it('the hour field decides the DST policy: * or a step makes a wildcard job', () => {
    expect(parseCron('0 * * * *').fields.hour.stepped).toBe(true)
    expect(parseCron('0 */2 * * *').fields.hour.stepped).toBe(true)
    expect(parseCron('0 1-5/2 * * *').fields.hour.stepped).toBe(true)
    expect(parseCron('*/5 2 * * *').fields.hour.stepped).toBe(false)
    expect(parseCron('0 0-23 * * *').fields.hour.stepped).toBe(false)
  })

  it('tolerates surrounding and repeated whitespace', () => {
    expect(parse('  0\t0  *\n* *  ').normalized).toBe('0 0 * * *')
  })
})

describe('cron errors locate the field and the offending token', () => {
  it.each([
    ['*/0 * * * *', 'minute', 2],
    ['1-0 * * * *', 'minute', 0],
    ['99 * * * *', 'minute', 0],
    ['0 24 * * *', 'hour', 2],
    ['0 0 0 * *', 'day_of_month', 4],
    ['0 0 32 * *', 'day_of_month', 4],
    ['0 0 * 13 *', 'month', 6],
    ['0 0 * * 8', 'day_of_week', 8],
    ['0 0 L-40 * *', 'day_of_month', 6],
    ['0 0 1,,2 * *', 'day_of_month', 6],
    ['0 0 1, * *', 'day_of_month', 6],
    ['0 0 * FOO *', 'month', 6],
    ['0 0 * * MON#6', 'day_of_week', 12],
    ['0 0 * * MON#', 'day_of_week', 12],
    ['0 0 * * L', 'day_of_week', 8],
    ['0 0 * JAN#2 *', 'month', 6],
    ['0 0 L/2 * *', 'day_of_month', 5],
    ['0 0 5-20W * *', 'day_of_month', 6],
    ['0 ? * * *', 'hour', 2],
    ['0 0 ?,1 * *', 'day_of_month', 4],
    ['*,5 * * * *', 'minute', 0],
    ['0 0 1-5/x * *', 'day_of_month', 8],
    ['0 0 1-5/3/2 * *', 'day_of_month', 8],
    ['0 0 -5 * *', 'day_of_month', 4],
    ['1 2 3 4 5 6 7', 'expression', 12],
    ['* * * *', 'expression', 7],
    ['', 'expression', 0],
    ['@reboot', 'expression', 0],
    ['  @every_5m', 'expression', 2],
    ['@daily 5', 'expression', 7],
    ['@__proto__', 'expression', 0],
    ['0 0 1 1 1 1x', 'day_of_week', 10],
  ])('%j → %s at %i', (expression, field, position) => {
    refused(expression, field, position)
  })

  it('points at the exact bad character, even after non-ASCII text', () => {
    expect(refused('0 0 1ß * *', 'day_of_month', 5)).toContain('ß')
    expect(refused('0 0 * * MON\ud800', 'day_of_week', 11)).toContain('unexpected character')
  })

  it('explains the problem', () => {
    expect(refused('*/0 * * * *', 'minute', 2)).toMatch(/step 0/)
    expect(refused('1-0 * * * *', 'minute', 0)).toMatch(/backwards/)
    expect(refused('99 * * * *', 'minute', 0)).toMatch(/out of range 0-59/)
    expect(refused('@reboot', 'expression', 0)).toMatch(/no schedule/)
  })

  it('an expression that can never run is refused with "never matches"', () => {
    for (const e of ['0 0 30 2 *', '0 0 31 4,6,9,11 *', '0 0 L-30 2 *', '0 0 30W FEB *', '0 0 31 2,4 ?']) {
      expect(refused(e, 'day_of_month', 4), e).toMatch(/never matches/)
    }
  })

  it('but rare ones are accepted (Feb 29, the fifth Monday of February)', () => {
    expect(cronParse({ expression: '0 0 29 2 *', from: FROM, count: 2 }).runs).toEqual([
      '2024-02-29T00:00:00+00:00',
      '2028-02-29T00:00:00+00:00',
    ])
    expect(cronParse({ expression: '0 0 * 2 MON#5', from: FROM, count: 2 }).runs).toEqual([
      '2044-02-29T00:00:00+00:00',
      '2072-02-29T00:00:00+00:00',
    ])
  })

  it('copes with very long lists quickly', () => {
    const list = Array.from({ length: 300 }, (_, i) => i % 60).join(',')
    expect(parse(`${list} * * * *`).fields.minute).toEqual(range(0, 59))
  })
})
