import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { civilFromDays, daysFromCivil, isoWeek } from '../../../src/ops/time/civil.ts'
import { timestamp } from '../../../src/ops/time/timestamp.ts'

const NOW = Date.UTC(2024, 2, 10, 12, 0, 0) // 2024-03-10T12:00:00Z

function ts(input: Parameters<typeof timestamp>[0]) {
  return timestamp(input, NOW)
}

function rejects(
  input: Parameters<typeof timestamp>[0],
  code: string,
  details: Record<string, unknown> = {},
) {
  expect(() => ts(input)).toThrowError(
    expect.objectContaining({ code, details: expect.objectContaining(details) }),
  )
}

describe('time: Unix timestamps', () => {
  it('converts seconds to every representation', () => {
    expect(ts({ value: 1700000000 })).toEqual({
      unix: { s: '1700000000', ms: '1700000000000', us: '1700000000000000', ns: '1700000000000000000' },
      iso8601: '2023-11-14T22:13:20.000Z',
      rfc2822: 'Tue, 14 Nov 2023 22:13:20 +0000',
      rfc3339_local: '2023-11-14T22:13:20+00:00',
      timezone: 'UTC',
      utc_offset: '+00:00',
      utc_offset_seconds: 0,
      relative: '3 months ago',
      day_of_week: 'Tuesday',
      iso_day_of_week: 2,
      day_of_year: 318,
      iso_week: '2023-W46',
      detected_unit: 's',
      input_format: 'unix',
      warnings: [],
    })
  })

  it('auto picks the unit by magnitude at the documented thresholds', () => {
    const unit = (value: string | number) => ts({ value }).detected_unit
    expect(unit(0)).toBe('s')
    expect(unit('99999999999')).toBe('s')
    expect(unit('100000000000')).toBe('ms')
    expect(unit('-100000000000')).toBe('ms')
    expect(unit('99999999999999')).toBe('ms')
    expect(unit('100000000000000')).toBe('us')
    expect(unit('99999999999999999')).toBe('us')
    expect(unit('100000000000000000')).toBe('ns')
    expect(unit('1.7e9')).toBe('s')
    expect(unit(1700000000123)).toBe('ms')
    expect(ts({ value: '1700000000123456' }).iso8601).toBe('2023-11-14T22:13:20.123456Z')
  })

  it('keeps big and fractional values exact when they come as strings', () => {
    expect(ts({ value: '1700000000123456789' }).unix.ns).toBe('1700000000123456789')
    expect(ts({ value: '1700000000123456789' }).iso8601).toBe('2023-11-14T22:13:20.123456789Z')
    expect(ts({ value: '1700000000.123' }).unix).toEqual({
      s: '1700000000',
      ms: '1700000000123',
      us: '1700000000123000',
      ns: '1700000000123000000',
    })
    expect(ts({ value: '1700000000.123456789' }).unix.ns).toBe('1700000000123456789')
    expect(ts({ value: '17e8', unit: 's' }).unix.s).toBe('1700000000')
  })

  it('honours an explicit unit', () => {
    expect(ts({ value: 1000, unit: 'ms' }).iso8601).toBe('1970-01-01T00:00:01.000Z')
    expect(ts({ value: 1000, unit: 'us' }).iso8601).toBe('1970-01-01T00:00:00.001Z')
    expect(ts({ value: '1', unit: 'ns' }).iso8601).toBe('1970-01-01T00:00:00.000000001Z')
    expect(ts({ value: 1000, unit: 'ms' }).detected_unit).toBe('ms')
  })

  it('floors negative and sub-unit values toward negative infinity', () => {
    const r = ts({ value: -1.5 })
    expect(r.unix).toEqual({ s: '-2', ms: '-1500', us: '-1500000', ns: '-1500000000' })
    expect(r.iso8601).toBe('1969-12-31T23:59:58.500Z')
    const fine = ts({ value: '-0.0000000015' })
    expect(fine.unix.ns).toBe('-2')
    expect(fine.warnings).toEqual([expect.stringContaining('finer than 1 ns')])
  })

  it('warns when a JSON number is too big to be exact', () => {
    expect(ts({ value: 1700000000000000000 }).warnings).toEqual([
      expect.stringContaining('send it as a string'),
    ])
    expect(ts({ value: 1700000000000 }).warnings).toEqual([])
  })

  it('accepts the whole JS Date range and nothing beyond', () => {
    expect(ts({ value: 8.64e15, unit: 'ms' }).iso8601).toBe('+275760-09-13T00:00:00.000Z')
    expect(ts({ value: '-8640000000000000', unit: 'ms' }).iso8601).toBe('-271821-04-20T00:00:00.000Z')
    rejects({ value: '8640000000000001', unit: 'ms' }, 'ERR_INVALID_TIMESTAMP', { field: 'value' })
    rejects({ value: '8640000000000000000001', unit: 'ns' }, 'ERR_INVALID_TIMESTAMP')
    rejects({ value: 1e300 }, 'ERR_INVALID_TIMESTAMP')
    rejects({ value: `1e${'9'.repeat(400)}` }, 'ERR_INVALID_TIMESTAMP')
    rejects({ value: '+275760-09-13T00:00:00.001Z' }, 'ERR_INVALID_TIMESTAMP')
    expect(ts({ value: `1e-${'9'.repeat(30)}` }).unix.ns).toBe('0')
  })
})

describe('time: ISO 8601 / RFC 3339', () => {
  // RFC 3339 §5.8 examples
  it.each([
    ['1985-04-12T23:20:50.52Z', '1985-04-12T23:20:50.520Z'],
    ['1996-12-19T16:39:57-08:00', '1996-12-20T00:39:57.000Z'],
    ['1937-01-01T12:00:27.87+00:20', '1937-01-01T11:40:27.870Z'],
    ['1990-12-31T23:59:60Z', '1991-01-01T00:00:00.000Z'],
    ['1990-12-31T15:59:60-08:00', '1991-01-01T00:00:00.000Z'],
  ])('RFC 3339 example %s', (value, iso) => {
    expect(ts({ value }).iso8601).toBe(iso)
    expect(ts({ value }).input_format).toBe('iso8601')
  })

  it('folds a leap second with a warning', () => {
    expect(ts({ value: '1990-12-31T23:59:60Z' }).warnings).toEqual([expect.stringContaining('leap second')])
  })

  it.each([
    ['2024-03-10', '2024-03-10T00:00:00.000Z'],
    ['2024-03', '2024-03-01T00:00:00.000Z'],
    ['2024-070', '2024-03-10T00:00:00.000Z'],
    ['2024-366', '2024-12-31T00:00:00.000Z'],
    ['2024-W10-7', '2024-03-10T00:00:00.000Z'],
    ['2024-W10', '2024-03-04T00:00:00.000Z'],
    ['2020-W53-5', '2021-01-01T00:00:00.000Z'],
    ['2024-03-10t07:00z', '2024-03-10T07:00:00.000Z'],
    ['2024-03-10 07:00:00,5+01', '2024-03-10T06:00:00.500Z'],
    ['2024-03-10T07:00:00+0530', '2024-03-10T01:30:00.000Z'],
    ['2024-03-10T24:00:00Z', '2024-03-11T00:00:00.000Z'],
    ['20240310T070000Z', '2024-03-10T07:00:00.000Z'],
    ['20240310T0700-0500', '2024-03-10T12:00:00.000Z'],
    ['+002024-03-10T07:00:00Z', '2024-03-10T07:00:00.000Z'],
    ['-000001-01-01T00:00:00Z', '-000001-01-01T00:00:00.000Z'],
    ['2024-03-10T07:00:00.1234567891Z', '2024-03-10T07:00:00.123456789Z'],
  ])('%s', (value, iso) => {
    expect(ts({ value }).iso8601).toBe(iso)
  })

  it('reads date-times without an offset in `timezone`, through DST transitions', () => {
    const ny = (value: string) => ts({ value, timezone: 'America/New_York' })
    expect(ny('2024-03-10T01:59:59').iso8601).toBe('2024-03-10T06:59:59.000Z')
    // in the spring-forward gap: moved forward by the gap
    expect(ny('2024-03-10T02:30:00').rfc3339_local).toBe('2024-03-10T03:30:00-04:00')
    expect(ny('2024-03-10T03:00:00').iso8601).toBe('2024-03-10T07:00:00.000Z')
    // repeated by the fall-back: the first occurrence
    expect(ny('2024-11-03T01:30:00').rfc3339_local).toBe('2024-11-03T01:30:00-04:00')
    expect(ny('2024-11-03T02:00:00').rfc3339_local).toBe('2024-11-03T02:00:00-05:00')
    expect(ts({ value: '2024-03-10', timezone: 'Asia/Kolkata' }).iso8601).toBe('2024-03-09T18:30:00.000Z')
    expect(ts({ value: '2024-03-10T07:00:00', timezone: '+05:30' }).iso8601).toBe('2024-03-10T01:30:00.000Z')
    // an explicit offset wins over the zone
    expect(ny('2024-03-10T07:00:00Z').iso8601).toBe('2024-03-10T07:00:00.000Z')
  })

  it.each([
    ['2024-13-01', 5, 'month 13'],
    ['2024-02-30', 8, 'day 30'],
    ['2023-366', 5, 'day of year'],
    ['2021-W53', 6, 'week 53'],
    ['2024-03-10T25:00', 11, 'hour 25'],
    ['2024-03-10T07:60', 14, 'minute'],
    ['2024-03-10T07:00:61', 17, 'second'],
    ['2024-03-10T24:00:01', 11, 'hour 24'],
    ['2024-03-10X07:00', 10, '"T"'],
    ['2024-03-10T07:00:00+24:00', 20, 'offset hours'],
    ['2024-03-10T07:00:00Zjunk', 20, 'unexpected'],
    ['2024-03-10T07:00:00.Z', 20, 'fraction'],
    ['2024-3-10', 6, 'month'],
    ['-000000-01-01', 0, '-000000'],
    ['2024-03T07:00', 7, '"-"'],
    ['', 0, 'ended early'],
  ])('refuses %j at position %i', (value, position, reason) => {
    rejects({ value }, 'ERR_INVALID_TIMESTAMP', {
      field: 'value',
      position,
      reason: expect.stringContaining(reason),
    })
  })
})

describe('time: RFC 2822', () => {
  it.each([
    ['Fri, 21 Nov 1997 09:55:06 -0600', '1997-11-21T15:55:06.000Z'],
    ['Tue, 1 Jul 2003 10:52:37 +0200', '2003-07-01T08:52:37.000Z'],
    ['Thu, 13 Feb 1969 23:32:54 -0330', '1969-02-14T03:02:54.000Z'],
    ['21 Nov 97 09:55:06 GMT', '1997-11-21T09:55:06.000Z'],
    ['Fri, 21 Nov 1997 09:55 EST', '1997-11-21T14:55:00.000Z'],
    ['  mon,  3 jun 2024 10:00:00 pdt  ', '2024-06-03T17:00:00.000Z'],
    ['3 Jun 2024 10:00:00 Q', '2024-06-03T10:00:00.000Z'],
  ])('%s', (value, iso) => {
    const r = ts({ value })
    expect(r.iso8601).toBe(iso)
    expect(r.input_format).toBe('rfc2822')
  })

  it.each([
    ['Mon, 1 Jul 2003 10:52:37 +0200', 0, 'day name does not match'],
    ['Tue, 1 Jux 2003 10:52:37 +0200', 7, 'month name'],
    ['Tue, 31 Jun 2003 10:52:37 +0200', 5, 'day 31'],
    ['Tue, 1 Jul 2003 10:52:37', 24, 'ended early'],
    ['Tue, 1 Jul 2003 10:52:37 XYZ', 25, 'zone'],
    ['hello', 0, 'day name'],
    ['1 Jan 2024 10:00 constructor', 17, 'zone'],
    ['1 Jan 2024 10:00 __proto__', 17, 'zone'],
  ])('refuses %j at position %i', (value, position, reason) => {
    rejects({ value }, 'ERR_INVALID_TIMESTAMP', { position, reason: expect.stringContaining(reason) })
  })
})

describe('time: zones and local fields', () => {
  it('answers in the requested zone, never the host one', () => {
    const r = ts({ value: '2024-03-10T07:00:00Z', timezone: 'America/New_York' })
    expect(r).toMatchObject({
      rfc3339_local: '2024-03-10T03:00:00-04:00',
      rfc2822: 'Sun, 10 Mar 2024 03:00:00 -0400',
      utc_offset: '-04:00',
      utc_offset_seconds: -14400,
      timezone: 'America/New_York',
      iso8601: '2024-03-10T07:00:00.000Z',
    })
    expect(ts({ value: '2024-03-10T06:59:59Z', timezone: 'America/New_York' }).rfc3339_local).toBe(
      '2024-03-10T01:59:59-05:00',
    )
  })

  it('uses the local date for day_of_week, day_of_year and iso_week', () => {
    const r = ts({ value: '2024-12-31T20:00:00Z', timezone: 'Pacific/Kiritimati' })
    expect(r).toMatchObject({
      rfc3339_local: '2025-01-01T10:00:00+14:00',
      day_of_week: 'Wednesday',
      day_of_year: 1,
    })
    expect(ts({ value: '2024-12-30' }).iso_week).toBe('2025-W01')
    expect(ts({ value: '2021-01-01' }).iso_week).toBe('2020-W53')
    expect(ts({ value: '2024-12-31' }).day_of_year).toBe(366)
  })

  it('names zones as sent, normalising case and offsets', () => {
    expect(ts({ value: 0, timezone: 'america/new_york' }).timezone).toBe('America/New_York')
    expect(ts({ value: 0, timezone: 'Asia/Kolkata' }).timezone).toBe('Asia/Kolkata')
    expect(ts({ value: 0, timezone: '-0800' })).toMatchObject({ timezone: '-08:00', utc_offset: '-08:00' })
    expect(ts({ value: 0, timezone: '+05:30' }).rfc3339_local).toBe('1970-01-01T05:30:00+05:30')
  })

  it('reports historic local mean time offsets exactly and keeps the RFC strings exact', () => {
    const r = ts({ value: '1800-01-01T00:00:00Z', timezone: 'America/New_York' })
    expect(r.utc_offset).toBe('-04:56:02')
    expect(r.rfc3339_local).toBe('1799-12-31T19:04:00-04:56')
    expect(r.rfc2822).toBeNull()
  })

  it('refuses unknown zones', () => {
    rejects({ value: 0, timezone: 'Mars/Olympus_Mons' }, 'ERR_INVALID_TIMEZONE', {
      timezone: 'Mars/Olympus_Mons',
    })
    rejects({ value: 0, timezone: '+24:00' }, 'ERR_INVALID_TIMEZONE')
    rejects({ value: 0, timezone: '' }, 'ERR_INVALID_TIMEZONE')
    rejects({ value: 0, timezone: 'x'.repeat(1000) }, 'ERR_INVALID_TIMEZONE')
  })
})

describe('time: now, relative and at', () => {
  it.each([
    ['2024-03-10T12:00:00Z', 'just now'],
    ['2024-03-10T12:00:00.999Z', 'just now'],
    ['2024-03-10T12:00:01Z', 'in 1 second'],
    ['2024-03-10T11:59:01Z', '59 seconds ago'],
    ['2024-03-10T12:05:00Z', 'in 5 minutes'],
    ['2024-03-10T09:00:00Z', '3 hours ago'],
    ['2024-03-08T11:00:00Z', '2 days ago'],
    ['2024-02-25T12:00:00Z', '2 weeks ago'],
    ['2024-05-10T12:00:00Z', 'in 2 months'],
    ['2025-03-10T12:00:00Z', 'in 1 year'],
    ['2025-03-10T11:59:59Z', 'in 11 months'],
    ['2024-04-07T12:00:00Z', 'in 4 weeks'],
    ['2021-03-10T12:00:01Z', '2 years ago'],
  ])('%s relative to now → %s', (value, text) => {
    expect(ts({ value }).relative).toBe(text)
  })

  it('takes `at` in any accepted form', () => {
    expect(ts({ value: 0, at: 3600 }).relative).toBe('1 hour ago')
    expect(ts({ value: 0, at: '1969-12-31T23:00:00Z' }).relative).toBe('in 1 hour')
    rejects({ value: 0, at: 'soon' }, 'ERR_INVALID_TIMESTAMP', { field: 'at' })
  })

  it('treats a missing value and "now" as the clock', () => {
    expect(ts({}).iso8601).toBe('2024-03-10T12:00:00.000Z')
    expect(ts({ value: 'NOW' })).toMatchObject({
      input_format: 'now',
      relative: 'just now',
      detected_unit: null,
    })
  })

  it('refuses a unit on a date string', () => {
    rejects({ value: '2024-03-10', unit: 'ms' }, 'ERR_VALIDATION')
    expect(ts({ value: '2024-03-10', unit: 'auto' }).iso8601).toBe('2024-03-10T00:00:00.000Z')
  })
})

describe('time: properties', () => {
  const MAX_MS = 8.64e15
  it('iso8601 of an integer ms equals Date#toISOString', () => {
    fc.assert(
      fc.property(fc.integer({ min: -MAX_MS, max: MAX_MS }), (ms) => {
        expect(ts({ value: String(ms), unit: 'ms' }).iso8601).toBe(new Date(ms).toISOString())
      }),
    )
  })

  it('every output string reads back as the same instant', () => {
    const zones = [
      'UTC',
      'America/New_York',
      'Asia/Kolkata',
      'Australia/Lord_Howe',
      'Pacific/Chatham',
      '-03:30',
    ]
    fc.assert(
      fc.property(
        fc.bigInt({ min: -8_640_000_000_000_000_000_000n, max: 8_640_000_000_000_000_000_000n }),
        fc.constantFrom(...zones),
        (ns, timezone) => {
          const r = ts({ value: ns.toString(), unit: 'ns', timezone })
          expect(r.unix.ns).toBe(ns.toString())
          expect(ts({ value: r.iso8601, timezone }).unix.ns).toBe(ns.toString())
          // LMT offsets with seconds are printed rounded, so compare those at the minute level
          if (r.utc_offset.length === 6) expect(ts({ value: r.rfc3339_local }).unix.ns).toBe(ns.toString())
          if (r.rfc2822 !== null && r.utc_offset.length === 6) {
            expect(ts({ value: r.rfc2822 }).unix.s).toBe(r.unix.s)
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('civil day arithmetic round-trips and agrees with Date', () => {
    fc.assert(
      fc.property(fc.integer({ min: -100_000_000, max: 100_000_000 }), (days) => {
        const d = civilFromDays(days)
        expect(daysFromCivil(d.year, d.month, d.day)).toBe(days)
        const date = new Date(days * 86_400_000)
        expect([d.year, d.month, d.day]).toEqual([
          date.getUTCFullYear(),
          date.getUTCMonth() + 1,
          date.getUTCDate(),
        ])
        const w = isoWeek(days)
        expect(w.week).toBeGreaterThanOrEqual(1)
        expect(w.week).toBeLessThanOrEqual(53)
      }),
    )
  })
})
