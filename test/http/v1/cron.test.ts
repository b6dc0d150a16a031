import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

// Many requests through one key: lift the per-second caps out of the way.
describe('/v1/cron/parse', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t.close())

  it('parses, describes and lists runs in the success envelope', async () => {
    const res = await t.post('/v1/cron/parse', {
      expression: '30 2 * * *',
      timezone: 'America/New_York',
      from: '2024-03-09T12:00:00Z',
      count: 2,
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      ok: true,
      data: {
        expression: '30 2 * * *',
        normalized: '30 2 * * *',
        has_seconds: false,
        fields: {
          minute: [30],
          hour: [2],
          day_of_month: Array.from({ length: 31 }, (_, i) => i + 1),
          month: Array.from({ length: 12 }, (_, i) => i + 1),
          day_of_week: [0, 1, 2, 3, 4, 5, 6],
        },
        special: [],
        day_matching: 'every_day',
        description: 'At 02:30 AM',
        timezone: 'America/New_York',
        direction: 'next',
        from: '2024-03-09T07:00:00-05:00',
        runs: ['2024-03-10T03:00:00-04:00', '2024-03-11T02:30:00-04:00'],
      },
    })
  })

  it('applies the defaults: UTC, 5 runs, next, from now', async () => {
    const res = await t.post('/v1/cron/parse', { expression: '0 0 L * 5L' })
    expect(res.statusCode).toBe(200)
    const data = res.json().data
    expect(data).toMatchObject({ timezone: 'UTC', direction: 'next', day_matching: 'either' })
    expect(data.runs).toHaveLength(5)
    expect(Date.parse(data.runs[0])).toBeGreaterThan(Date.parse(data.from))
    expect(data.special.map((s: { token: string }) => s.token)).toEqual(['L', '5L'])
  })

  it('lists previous runs, most recent first', async () => {
    const res = await t.post('/v1/cron/parse', {
      expression: '0 * * * *',
      timezone: 'Europe/Athens',
      from: '2024-10-27T04:30:00+02:00',
      count: 3,
      direction: 'previous',
    })
    expect(res.json().data.runs).toEqual([
      '2024-10-27T04:00:00+02:00',
      '2024-10-27T03:00:00+02:00',
      '2024-10-27T03:00:00+03:00',
    ])
  })

  it('refuses bad expressions with ERR_INVALID_CRON and the field and position', async () => {
    const res = await t.post('/v1/cron/parse', { expression: '0 0 L-40 * *' })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({
      type: 'invalid_request',
      code: 'ERR_INVALID_CRON',
      details: { field: 'day_of_month', position: 6, reason: expect.any(String) },
    })
    const never = await t.post('/v1/cron/parse', { expression: '0 0 30 2 *' })
    expect(never.statusCode).toBe(400)
    expect(never.json().error.details).toMatchObject({ field: 'day_of_month', position: 4 })
    expect(never.json().error.details.reason).toMatch(/never matches/)
    const reboot = await t.post('/v1/cron/parse', { expression: '@reboot' })
    expect(reboot.json().error).toMatchObject({ code: 'ERR_INVALID_CRON', details: { field: 'expression' } })
  })

  it('refuses unknown zones and bad instants with their codes', async () => {
    const zone = await t.post('/v1/cron/parse', { expression: '* * * * *', timezone: 'Mars/Base' })
    expect(zone.statusCode).toBe(400)
    expect(zone.json().error).toMatchObject({
      code: 'ERR_INVALID_TIMEZONE',
      details: { timezone: 'Mars/Base' },
    })
    const from = await t.post('/v1/cron/parse', { expression: '* * * * *', from: '2024-01-01T00:00:00' })
    expect(from.statusCode).toBe(400)
    expect(from.json().error).toMatchObject({ code: 'ERR_INVALID_TIMESTAMP', details: { field: 'from' } })
  })

  it('validates the body schema', async () => {
    const res = await t.post('/v1/cron/parse', { expression: 5, count: 0, direction: 'sideways' })
    expect(res.statusCode).toBe(400)
    const err = res.json().error
    expect(err.code).toBe('ERR_VALIDATION')
    expect(err.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      'count',
      'direction',
      'expression',
    ])
    const big = await t.post('/v1/cron/parse', { expression: '* * * * *', count: 101 })
    expect(big.json().error.code).toBe('ERR_VALIDATION')
  })

  it('refuses prototype keys as unknown fields and cannot be polluted', async () => {
    const res = await t.post(
      '/v1/cron/parse',
      '{"expression":"@daily","__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}',
    )
    expect(res.statusCode).toBe(400)
    expect(res.json().error.details.issues.map((i: { path: string }) => i.path)).toEqual([
      '__proto__',
      'constructor',
    ])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    const macro = await t.post('/v1/cron/parse', { expression: '@constructor' })
    expect(macro.json().error.code).toBe('ERR_INVALID_CRON')
  })

  it('needs an API key', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/cron/parse',
      headers: { 'content-type': 'application/json' },
      payload: '{"expression":"* * * * *"}',
    })
    expect(res.statusCode).toBe(401)
  })

  it('is in the OpenAPI document with its error codes', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })
    const op = res.json().paths['/v1/cron/parse'].post
    expect(op.operationId).toBe('parseCron')
    expect(op.responses['400'].description).toContain('ERR_INVALID_CRON')
    expect(op.responses['400'].description).toContain('ERR_INVALID_TIMEZONE')
  })

  it('fuzz: any body, hostile expressions included, gets an envelope and never a 5xx', async () => {
    const anyUnit = fc.nat({ max: 0xffff }).map((n) => String.fromCharCode(n))
    const cronChar = fc.constantFrom(...'0123456789*/,-?LW# @', ...'JANFEBMONSUNSATLWlw', '\t', '\ud800')
    const part = (tokens: string[], wild = ['*']) =>
      fc.oneof(
        fc.constantFrom(...wild),
        fc.array(fc.constantFrom(...tokens), { minLength: 1, maxLength: 3 }).map((a) => a.join(',')),
      )
    const validish = fc
      .tuple(
        part(['0', '*/15', '5-20/5', '10/5', '59']),
        part(['2', '1-3', '*/6', '23']),
        part(['L', 'LW', '15W', 'L-3', '1', '31', '*/10'], ['*', '?']),
        part(['JAN', '2', '6-8', '*/3']),
        part(['MON-FRI', '5L', 'MON#2', '7', '0#5'], ['*', '?']),
      )
      .map((f) => f.join(' '))
    const hostileExpression = fc.oneof(
      { weight: 8, arbitrary: validish },
      fc.string({ unit: cronChar, maxLength: 40 }),
      fc.string({ unit: anyUnit, maxLength: 20 }),
      fc.constantFrom(
        '*/0 * * * *',
        '1-0 * * * *',
        '99 * * * *',
        '0 0 L-40 * *',
        '0 0 30 2 *',
        '0 0 31 4,6,9,11 *',
        `${Array.from({ length: 400 }, (_, i) => i % 60).join(',')} * * * *`,
        '99999999999999999999 * * * *',
        '*/99999999999999999999 * * * *',
        '@reboot',
        '@__proto__',
        '0 0 * 2 1#5',
        '* * * * * *',
        '0 0 LW,L-30,1W,31W * 0#5,6L,7#1',
      ),
      fc
        .array(fc.constantFrom('*', '?', 'L', 'LW', '5L', '1#5', '15W', '*/7', '1-31/2', '7', 'SUN-SAT'), {
          minLength: 5,
          maxLength: 6,
        })
        .map((a) => a.join(' ')),
    )
    const hostileValue = fc.oneof(
      fc.string({ unit: anyUnit, maxLength: 30 }),
      fc.constantFrom(1e308, -0, 2 ** 53 + 2, -1, 3.5, true, null, '__proto__'),
      fc.jsonValue({ maxDepth: 3 }),
    )
    const mostly = <T>(a: fc.Arbitrary<T>) =>
      fc.oneof({ weight: 6, arbitrary: a }, { weight: 1, arbitrary: hostileValue })
    const body = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record(
          {
            expression: mostly(hostileExpression),
            timezone: mostly(
              fc.constantFrom('UTC', 'America/New_York', 'Europe/Athens', 'Pacific/Apia', 'x'),
            ),
            count: mostly(fc.integer({ min: 1, max: 100 })),
            from: mostly(
              fc.oneof(
                fc
                  .integer({
                    min: Date.parse('0001-01-01T00:00:00Z'),
                    max: Date.parse('9999-12-31T00:00:00Z'),
                  })
                  .map((ms) => new Date(ms).toISOString()),
                fc.constantFrom(
                  '2024-11-03T01:30:00-04:00',
                  '9999-12-30T23:59:59Z',
                  '0001-01-02T00:00:00Z',
                  '9999-12-31T23:59:59Z',
                ),
              ),
            ),
            direction: mostly(fc.constantFrom('next', 'previous')),
          },
          { requiredKeys: ['expression'] },
        ),
      },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
      { weight: 1, arbitrary: fc.object({ maxDepth: 3 }) },
    )
    // "__proto__" as a real JSON key (an object literal would set the prototype instead)
    const raw = fc.oneof(
      { weight: 4, arbitrary: body.map((b) => JSON.stringify(b)) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(hostileExpression, hostileValue)
          .map(([e, v]) => `{"__proto__":${JSON.stringify(v)},"expression":${JSON.stringify(e)}}`),
      },
    )
    const statuses = new Map<number, number>()
    await fc.assert(
      fc.asyncProperty(raw, async (b) => {
        const res = await t.post('/v1/cron/parse', b)
        expect(res.statusCode).toBeLessThan(500)
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
        const json = res.json()
        if (res.statusCode === 200) {
          expect(json.ok).toBe(true)
          expect(Array.isArray(json.data.runs)).toBe(true)
        } else {
          expect(json.error).toMatchObject({ type: expect.any(String), message: expect.any(String) })
          expect(json.error.code).toMatch(/^ERR_/)
        }
      }),
      { numRuns: 200 },
    )
    // the operation itself ran, not only the schema check
    expect(statuses.get(200)).toBeGreaterThan(0)
  })
})
