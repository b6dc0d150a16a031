import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

// Hundreds of requests through one key: lift the per-second caps out of the way.
function expectEnvelope(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBeLessThan(500)
  const body = res.json()
  if (res.statusCode === 200) {
    expect(body).toEqual({ ok: true, data: expect.any(Object) })
  } else {
    expect(body.error).toMatchObject({
      type: expect.any(String),
      message: expect.any(String),
      code: expect.stringMatching(/^ERR_/),
    })
  }
}

describe('/v1/time/timestamp', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t.close())

  it('converts a timestamp in a zone', async () => {
    const res = await t.post('/v1/time/timestamp', {
      value: '2024-03-10T02:30:00',
      timezone: 'America/New_York',
      at: '2024-03-10T12:00:00Z',
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      ok: true,
      data: {
        unix: { s: '1710055800', ms: '1710055800000', us: '1710055800000000', ns: '1710055800000000000' },
        iso8601: '2024-03-10T07:30:00.000Z',
        rfc2822: 'Sun, 10 Mar 2024 03:30:00 -0400',
        rfc3339_local: '2024-03-10T03:30:00-04:00',
        timezone: 'America/New_York',
        utc_offset: '-04:00',
        utc_offset_seconds: -14400,
        relative: '4 hours ago',
        day_of_week: 'Sunday',
        iso_day_of_week: 7,
        day_of_year: 70,
        iso_week: '2024-W10',
        detected_unit: null,
        input_format: 'iso8601',
        warnings: [],
      },
    })
  })

  it('keeps a big ns value exact when sent as a string, and says which unit it detected', async () => {
    const res = await t.post('/v1/time/timestamp', { value: '1700000000123456789' })
    expect(res.json().data).toMatchObject({
      detected_unit: 'ns',
      unix: { ns: '1700000000123456789', s: '1700000000' },
      iso8601: '2023-11-14T22:13:20.123456789Z',
    })
  })

  it('defaults to now in UTC', async () => {
    const before = Date.now()
    const res = await t.post('/v1/time/timestamp', {})
    const data = res.json().data
    expect(data).toMatchObject({
      timezone: 'UTC',
      input_format: 'now',
      relative: 'just now',
      detected_unit: null,
    })
    expect(Number(data.unix.ms)).toBeGreaterThanOrEqual(before)
    expect(Number(data.unix.ms)).toBeLessThanOrEqual(Date.now())
  })

  it('refuses bad timestamps with the position', async () => {
    const res = await t.post('/v1/time/timestamp', { value: '2024-02-30T10:00:00Z' })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({
      type: 'invalid_request',
      code: 'ERR_INVALID_TIMESTAMP',
      details: {
        field: 'value',
        value: '2024-02-30T10:00:00Z',
        position: 8,
        reason: 'day 30 is out of range (1–29)',
      },
    })
    const at = await t.post('/v1/time/timestamp', { value: 0, at: 'later' })
    expect(at.json().error).toMatchObject({ code: 'ERR_INVALID_TIMESTAMP', details: { field: 'at' } })
    const far = await t.post('/v1/time/timestamp', { value: '8640000000000001', unit: 'ms' })
    expect(far.json().error.code).toBe('ERR_INVALID_TIMESTAMP')
  })

  it('refuses unknown zones', async () => {
    const res = await t.post('/v1/time/timestamp', { timezone: 'Europe/Atlantis' })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({
      code: 'ERR_INVALID_TIMEZONE',
      details: { timezone: 'Europe/Atlantis' },
    })
  })

  it('refuses schema violations', async () => {
    const res = await t.post('/v1/time/timestamp', { value: true, unit: 'minutes' })
    expect(res.statusCode).toBe(400)
    const err = res.json().error
    expect(err.code).toBe('ERR_VALIDATION')
    expect(err.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['unit', 'value'])
    const unit = await t.post('/v1/time/timestamp', { value: '2024-01-01', unit: 'ms' })
    expect(unit.json().error).toMatchObject({
      code: 'ERR_VALIDATION',
      details: { issues: [{ path: 'unit' }] },
    })
  })

  it('needs an API key', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/time/timestamp', payload: {} })
    expect(res.statusCode).toBe(401)
  })

  it('fuzz: hostile bodies never produce a 5xx and always an envelope', async () => {
    const anyUnit = fc.nat({ max: 0xffff }).map((n) => String.fromCharCode(n))
    const dateish = fc.oneof(
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
      fc.stringMatching(/^[+-]?\d{1,25}(\.\d{0,12})?(e[+-]?\d{1,4})?$/),
      fc.string({ unit: fc.constantFrom(...'0123456789-+:.,TWZtz '), maxLength: 30 }),
      fc.string({ unit: anyUnit, maxLength: 30 }),
      fc.constantFrom('now', '__proto__', 'a\ud800', `${'9'.repeat(300)}`, '1e999999999', '-0', ''),
    )
    const scalar = fc.oneof(
      dateish,
      fc.double(),
      fc.integer(),
      fc.constantFrom(1e308, -1e308, 2 ** 53 + 2, -0, 8.64e15, 8.64e15 + 1),
    )
    const body = fc.oneof(
      fc.record(
        {
          value: fc.oneof(
            { weight: 6, arbitrary: scalar },
            { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
          ),
          unit: fc.oneof(fc.constantFrom('auto', 's', 'ms', 'us', 'ns'), fc.jsonValue({ maxDepth: 1 })),
          timezone: fc.oneof(
            fc.constantFrom(
              'UTC',
              'America/New_York',
              '+05:30',
              'Asia/Kolkata',
              '__proto__',
              '+99:99',
              'utc',
            ),
            fc.string({ unit: anyUnit, maxLength: 20 }),
          ),
          at: scalar,
        },
        { requiredKeys: [] },
      ),
      fc.jsonValue({ maxDepth: 4 }),
      fc.dictionary(
        fc.constantFrom('__proto__', 'constructor', 'value', 'prototype'),
        fc.jsonValue({ maxDepth: 2 }),
      ),
    )
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        expectEnvelope(await t.post('/v1/time/timestamp', JSON.stringify(b)))
      }),
      { numRuns: 200 },
    )
    const deep = `{"value":${'['.repeat(5000)}${']'.repeat(5000)}}`
    expectEnvelope(await t.post('/v1/time/timestamp', deep))
    expectEnvelope(await t.post('/v1/time/timestamp', '{"__proto__":{"value":1},"value":"1"}'))
    expect(({} as Record<string, unknown>).value).toBeUndefined()
  })
})
