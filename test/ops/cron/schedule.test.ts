import { describe, expect, it } from 'vitest'
import { type CronParseInput, cronParse } from '../../../src/ops/cron/op.ts'

const NY = 'America/New_York'
const ATHENS = 'Europe/Athens'

function runs(
  expression: string,
  timezone: string,
  from: string,
  count: number,
  direction: 'next' | 'previous' = 'next',
) {
  return cronParse({ expression, timezone, from, count, direction }).runs
}

function failure(input: CronParseInput): unknown {
  try {
    cronParse(input)
  } catch (err) {
    return err
  }
  throw new Error('expected a refusal')
}

// New York 2024: 02:00 EST → 03:00 EDT on March 10; 02:00 EDT → 01:00 EST on November 3.
describe('DST in America/New_York (Vixie cron policy)', () => {
  it('a fixed time in the spring-forward gap runs once, when the gap ends (API.md example)', () => {
    expect(runs('30 2 * * *', NY, '2024-03-09T12:00:00Z', 3)).toEqual([
      '2024-03-10T03:00:00-04:00',
      '2024-03-11T02:30:00-04:00',
      '2024-03-12T02:30:00-04:00',
    ])
    expect(runs('30 2 * * *', NY, '2024-03-11T00:00:00-04:00', 2, 'previous')).toEqual([
      '2024-03-10T03:00:00-04:00',
      '2024-03-09T02:30:00-05:00',
    ])
  })

  it('several fixed times in one gap, or a gap time and the gap end, still give one run', () => {
    expect(runs('0,30 2 * * *', NY, '2024-03-10T00:00:00-05:00', 3)).toEqual([
      '2024-03-10T03:00:00-04:00',
      '2024-03-11T02:00:00-04:00',
      '2024-03-11T02:30:00-04:00',
    ])
    expect(runs('0 2,3 * * *', NY, '2024-03-10T00:00:00-05:00', 2)).toEqual([
      '2024-03-10T03:00:00-04:00',
      '2024-03-11T02:00:00-04:00',
    ])
    expect(runs('*/15 2 * * *', NY, '2024-03-11T02:01:00-04:00', 3, 'previous')).toEqual([
      '2024-03-11T02:00:00-04:00',
      '2024-03-10T03:00:00-04:00',
      '2024-03-09T02:45:00-05:00',
    ])
    expect(runs('0 30 2 * * *', NY, '2024-03-10T00:00:00-05:00', 1)).toEqual(['2024-03-10T03:00:00-04:00'])
  })

  it('a fixed time repeated by the fall-back runs once, at its first occurrence', () => {
    expect(runs('30 1 * * *', NY, '2024-11-02T12:00:00Z', 2)).toEqual([
      '2024-11-03T01:30:00-04:00',
      '2024-11-04T01:30:00-05:00',
    ])
    expect(runs('30 1 * * *', NY, '2024-11-04T12:00:00Z', 3, 'previous')).toEqual([
      '2024-11-04T01:30:00-05:00',
      '2024-11-03T01:30:00-04:00',
      '2024-11-02T01:30:00-04:00',
    ])
    // from inside the repeated hour (second pass): 01:30 has already run
    expect(runs('30 1 * * *', NY, '2024-11-03T01:10:00-05:00', 1)).toEqual(['2024-11-04T01:30:00-05:00'])
    expect(runs('*/15 1 * * *', NY, '2024-11-03T00:59:00-04:00', 5)).toEqual([
      '2024-11-03T01:00:00-04:00',
      '2024-11-03T01:15:00-04:00',
      '2024-11-03T01:30:00-04:00',
      '2024-11-03T01:45:00-04:00',
      '2024-11-04T01:00:00-05:00',
    ])
  })

  it('a wildcard hour runs at every real instant: both 01:00s, and no 02:00 in the gap', () => {
    expect(runs('0 * * * *', NY, '2024-11-03T00:30:00-04:00', 3)).toEqual([
      '2024-11-03T01:00:00-04:00',
      '2024-11-03T01:00:00-05:00',
      '2024-11-03T02:00:00-05:00',
    ])
    expect(runs('0 * * * *', NY, '2024-11-03T02:30:00-05:00', 4, 'previous')).toEqual([
      '2024-11-03T02:00:00-05:00',
      '2024-11-03T01:00:00-05:00',
      '2024-11-03T01:00:00-04:00',
      '2024-11-03T00:00:00-04:00',
    ])
    expect(runs('*/30 * * * *', NY, '2024-11-03T00:50:00-04:00', 6)).toEqual([
      '2024-11-03T01:00:00-04:00',
      '2024-11-03T01:30:00-04:00',
      '2024-11-03T01:00:00-05:00',
      '2024-11-03T01:30:00-05:00',
      '2024-11-03T02:00:00-05:00',
      '2024-11-03T02:30:00-05:00',
    ])
    expect(runs('0 * * * *', NY, '2024-03-10T00:30:00-05:00', 3)).toEqual([
      '2024-03-10T01:00:00-05:00',
      '2024-03-10T03:00:00-04:00',
      '2024-03-10T04:00:00-04:00',
    ])
    expect(runs('0 */1 * * *', NY, '2024-03-10T04:30:00-04:00', 3, 'previous')).toEqual([
      '2024-03-10T04:00:00-04:00',
      '2024-03-10T03:00:00-04:00',
      '2024-03-10T01:00:00-05:00',
    ])
  })

  it('from inside the repeated hour, wildcard runs of both passes are found', () => {
    // first pass: the second pass of earlier minutes is still ahead
    expect(runs('0,30 * * * *', NY, '2024-11-03T01:10:00-04:00', 4)).toEqual([
      '2024-11-03T01:30:00-04:00',
      '2024-11-03T01:00:00-05:00',
      '2024-11-03T01:30:00-05:00',
      '2024-11-03T02:00:00-05:00',
    ])
    // second pass: the first pass of later minutes is behind
    expect(runs('0,30 * * * *', NY, '2024-11-03T01:10:00-05:00', 4, 'previous')).toEqual([
      '2024-11-03T01:00:00-05:00',
      '2024-11-03T01:30:00-04:00',
      '2024-11-03T01:00:00-04:00',
      '2024-11-03T00:30:00-04:00',
    ])
  })
})

// Athens 2024 (EU rules): 03:00 → 04:00 on March 31; 04:00 → 03:00 on October 27.
describe('DST in Europe/Athens', () => {
  it('spring-forward gap: fixed time at the gap end, wildcard hour skips it', () => {
    expect(runs('30 3 * * *', ATHENS, '2024-03-30T12:00:00Z', 2)).toEqual([
      '2024-03-31T04:00:00+03:00',
      '2024-04-01T03:30:00+03:00',
    ])
    expect(runs('30 3 * * *', ATHENS, '2024-04-01T00:00:00+03:00', 2, 'previous')).toEqual([
      '2024-03-31T04:00:00+03:00',
      '2024-03-30T03:30:00+02:00',
    ])
    expect(runs('0 * * * *', ATHENS, '2024-03-31T01:30:00+02:00', 3)).toEqual([
      '2024-03-31T02:00:00+02:00',
      '2024-03-31T04:00:00+03:00',
      '2024-03-31T05:00:00+03:00',
    ])
    expect(runs('0 * * * *', ATHENS, '2024-03-31T04:30:00+03:00', 3, 'previous')).toEqual([
      '2024-03-31T04:00:00+03:00',
      '2024-03-31T02:00:00+02:00',
      '2024-03-31T01:00:00+02:00',
    ])
  })

  it('fall-back overlap: fixed time once, wildcard hour twice', () => {
    expect(runs('30 3 * * *', ATHENS, '2024-10-26T12:00:00Z', 2)).toEqual([
      '2024-10-27T03:30:00+03:00',
      '2024-10-28T03:30:00+02:00',
    ])
    expect(runs('30 3 * * *', ATHENS, '2024-10-28T00:00:00+02:00', 2, 'previous')).toEqual([
      '2024-10-27T03:30:00+03:00',
      '2024-10-26T03:30:00+03:00',
    ])
    expect(runs('0 * * * *', ATHENS, '2024-10-27T02:30:00+03:00', 3)).toEqual([
      '2024-10-27T03:00:00+03:00',
      '2024-10-27T03:00:00+02:00',
      '2024-10-27T04:00:00+02:00',
    ])
    expect(runs('0 * * * *', ATHENS, '2024-10-27T04:30:00+02:00', 4, 'previous')).toEqual([
      '2024-10-27T04:00:00+02:00',
      '2024-10-27T03:00:00+02:00',
      '2024-10-27T03:00:00+03:00',
      '2024-10-27T02:00:00+03:00',
    ])
  })
})

describe('other zones and offsets', () => {
  it('a 30-minute DST shift (Australia/Lord_Howe)', () => {
    expect(runs('15 2 * * *', 'Australia/Lord_Howe', '2024-10-05T12:00:00Z', 2)).toEqual([
      '2024-10-06T02:30:00+11:00',
      '2024-10-07T02:15:00+11:00',
    ])
  })

  it('a skipped calendar day (Pacific/Apia, 30 Dec 2011) runs once, when the gap ends', () => {
    expect(runs('0 12 * * *', 'Pacific/Apia', '2011-12-29T00:00:00-10:00', 3)).toEqual([
      '2011-12-29T12:00:00-10:00',
      '2011-12-31T00:00:00+14:00',
      '2011-12-31T12:00:00+14:00',
    ])
  })

  it('historical offsets with seconds are written out (Africa/Monrovia before 1972)', () => {
    expect(runs('0 0 * * *', 'Africa/Monrovia', '1971-12-28T12:00:00Z', 1, 'previous')).toEqual([
      '1971-12-28T00:00:00-00:44:30',
    ])
  })

  it('UTC is the default zone and is written +00:00', () => {
    const r = cronParse({ expression: '0 12 * * *', from: '2024-01-01T00:00:00Z', count: 1 })
    expect(r.timezone).toBe('UTC')
    expect(r.runs).toEqual(['2024-01-01T12:00:00+00:00'])
  })

  it('unknown zones are refused', () => {
    for (const timezone of ['Mars/Olympus', '', 'America/New York', '__proto__']) {
      expect(failure({ expression: '* * * * *', timezone })).toMatchObject({
        code: 'ERR_INVALID_TIMEZONE',
        details: { timezone },
      })
    }
  })

  it('does not depend on the server time zone', () => {
    const input = { expression: '30 2 * * *', timezone: NY, from: '2024-03-09T12:00:00Z', count: 3 }
    const before = cronParse(input)
    const saved = process.env.TZ
    try {
      process.env.TZ = 'Asia/Kolkata'
      expect(cronParse(input)).toEqual(before)
    } finally {
      if (saved === undefined) delete process.env.TZ
      else process.env.TZ = saved
    }
  })
})

describe('days', () => {
  const from = '2024-01-01T00:00:00Z'
  const days = (expression: string, count: number, start = from) =>
    runs(expression, 'UTC', start, count).map((s) => s.slice(0, 10))

  it('day of month OR day of week when both are restricted', () => {
    expect(days('0 0 13 * FRI', 7, '2024-09-01T00:00:00Z')).toEqual([
      '2024-09-06',
      '2024-09-13',
      '2024-09-20',
      '2024-09-27',
      '2024-10-04',
      '2024-10-11',
      '2024-10-13',
    ])
    expect(days('0 0 13 * *', 2, '2024-09-01T00:00:00Z')).toEqual(['2024-09-13', '2024-10-13'])
    expect(days('0 0 ? * FRI', 2, '2024-09-01T00:00:00Z')).toEqual(['2024-09-06', '2024-09-13'])
  })

  it('L, L-n, LW', () => {
    expect(days('0 0 L * *', 3)).toEqual(['2024-01-31', '2024-02-29', '2024-03-31'])
    expect(days('0 0 L 2 *', 2)).toEqual(['2024-02-29', '2025-02-28'])
    expect(days('0 0 L-3 * *', 2)).toEqual(['2024-01-28', '2024-02-26'])
    // June 30 2024 is a Sunday, August 31 a Saturday
    expect(days('0 0 LW 6,8 *', 2)).toEqual(['2024-06-28', '2024-08-30'])
  })

  it('nW: nearest weekday, never crossing into another month', () => {
    // June 15 2024 is a Saturday, September 15 a Sunday
    expect(days('0 0 15W 6,9 *', 2)).toEqual(['2024-06-14', '2024-09-16'])
    // June 1 2024 is a Saturday: Monday the 3rd, not May 31
    expect(days('0 0 1W 6 *', 1)).toEqual(['2024-06-03'])
    // March 31 2024 is a Sunday: Friday the 29th, not April 1; 31W never runs in 30-day months
    expect(days('0 0 31W * *', 3, '2024-03-01T00:00:00Z')).toEqual(['2024-03-29', '2024-05-31', '2024-07-31'])
  })

  it('nL and n#k', () => {
    expect(days('0 0 * * 5L', 2)).toEqual(['2024-01-26', '2024-02-23'])
    // the last day of the month is a Friday (January 31 and February 28 2025): that day, never the one a
    // week before it (a bound off by one: day + 7 >= last)
    expect(days('0 0 * * 5L', 2, '2025-01-01T00:00:00Z')).toEqual(['2025-01-31', '2025-02-28'])
    // and six days before the end, the earliest a last weekday can be (March 2025 ends on a Monday)
    expect(days('0 0 * * 2L', 1, '2025-03-01T00:00:00Z')).toEqual(['2025-03-25'])
    expect(days('0 0 * * MON#2', 2)).toEqual(['2024-01-08', '2024-02-12'])
    expect(days('0 0 * * 5#3', 2)).toEqual(['2024-01-19', '2024-02-16'])
    // March 2024 has five Fridays (1, 8, 15, 22, 29)
    expect(days('0 0 * * FRI#5', 2)).toEqual(['2024-03-29', '2024-05-31'])
  })

  it('mixed lists of plain and special days', () => {
    expect(days('0 0 1,L * *', 4)).toEqual(['2024-01-31', '2024-02-01', '2024-02-29', '2024-03-01'])
    expect(days('0 0 * * 0#1,6L', 3)).toEqual(['2024-01-07', '2024-01-27', '2024-02-04'])
  })
})

describe('from, count and direction', () => {
  it('runs are strictly after (next) or strictly before (previous) `from`', () => {
    expect(runs('0 0 * * *', 'UTC', '2024-01-01T00:00:00Z', 1)).toEqual(['2024-01-02T00:00:00+00:00'])
    expect(runs('0 0 * * *', 'UTC', '2024-01-01T00:00:00Z', 1, 'previous')).toEqual([
      '2023-12-31T00:00:00+00:00',
    ])
    expect(runs('* * * * * *', 'UTC', '2024-01-01T00:00:00.500Z', 1)).toEqual(['2024-01-01T00:00:01+00:00'])
    expect(runs('* * * * * *', 'UTC', '2024-01-01T00:00:00.500Z', 1, 'previous')).toEqual([
      '2024-01-01T00:00:00+00:00',
    ])
  })

  it('seconds', () => {
    expect(runs('*/20 * * * * *', 'UTC', '2024-01-01T00:00:00Z', 3)).toEqual([
      '2024-01-01T00:00:20+00:00',
      '2024-01-01T00:00:40+00:00',
      '2024-01-01T00:01:00+00:00',
    ])
  })

  it('echoes the zone, direction and reference instant', () => {
    const r = cronParse({ expression: '@hourly', timezone: 'utc', from: '2024-07-01T12:00:00.250+02:00' })
    expect(r).toMatchObject({ timezone: 'UTC', direction: 'next', from: '2024-07-01T10:00:00.250+00:00' })
    expect(r.runs).toHaveLength(5)
  })

  it('from defaults to now', () => {
    const before = Date.now()
    const r = cronParse({ expression: '* * * * * *', count: 1 })
    expect(Date.parse(r.runs[0]!)).toBeGreaterThan(before)
    expect(Date.parse(r.runs[0]!)).toBeLessThanOrEqual(Date.now() + 1000)
  })

  it('stops at the years 1 and 9999', () => {
    expect(runs('0 0 1 1 *', 'UTC', '9997-06-01T00:00:00Z', 5)).toEqual([
      '9998-01-01T00:00:00+00:00',
      '9999-01-01T00:00:00+00:00',
    ])
    expect(runs('0 0 1 1 *', 'UTC', '0002-06-01T00:00:00Z', 5, 'previous')).toEqual([
      '0002-01-01T00:00:00+00:00',
      '0001-01-01T00:00:00+00:00',
    ])
  })

  it('keeps wall times within the years 1-9999 in every zone', () => {
    expect(runs('59 23 * * *', 'Pacific/Kiritimati', '9999-12-30T23:59:59Z', 3)).toEqual([
      '9999-12-31T23:59:00+14:00',
    ])
    expect(runs('0 0 * * *', 'America/New_York', '0001-01-02T00:00:00Z', 3, 'previous')).toEqual([
      '0001-01-01T00:00:00-04:56:02',
    ])
    for (const from of ['9999-12-31T00:00:00Z', '0001-01-01T12:00:00Z']) {
      expect(failure({ expression: '* * * * *', from }), from).toMatchObject({
        code: 'ERR_INVALID_TIMESTAMP',
      })
    }
  })

  it('refuses a `from` that is not an instant', () => {
    for (const from of [
      '2024-01-01T00:00:00',
      '2024-01-01',
      'yesterday',
      '2024-02-30T00:00:00Z',
      '2024-01-01T24:00:00Z',
      '0000-01-01T00:00:00Z',
      '2024-01-01T00:00:00+25:00',
    ]) {
      expect(failure({ expression: '* * * * *', from }), from).toMatchObject({
        code: 'ERR_INVALID_TIMESTAMP',
        details: { field: 'from', value: from },
      })
    }
  })

  it('accepts RFC 3339 variants of `from`', () => {
    for (const from of [
      '2024-01-01T00:00:00Z',
      '2024-01-01t00:00:00z',
      '2024-01-01 00:00:00Z',
      '2024-01-01T01:00+01:00',
      '2024-01-01T01:00:00.000000001+0100',
    ]) {
      expect(runs('0 12 * * *', 'UTC', from, 1), from).toEqual(['2024-01-01T12:00:00+00:00'])
    }
  })
})
