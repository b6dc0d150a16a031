import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

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

const anyUnit = fc.nat({ max: 0xffff }).map((n) => String.fromCharCode(n))
const hostileString = fc.oneof(
  fc.string({ unit: anyUnit, maxLength: 40 }),
  fc.uuid().map((u) => u.toUpperCase()),
  fc.uuid().map((u) => `{${u}}`),
  fc.constantFrom('__proto__', 'constructor', 'dns', 'url', 'a\ud800', '\udc00', 'urn:uuid:', '{', ''),
)
const hostile = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  fc.constantFrom(1e308, -0, 2 ** 53 + 2, -1, 0, 1000, 1001, 3.5, true, null),
  fc.jsonValue({ maxDepth: 3 }),
)

describe('/v1/id', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t.close())

  it('uuid: v4 by default', async () => {
    const res = await t.post('/v1/id/uuid', {})
    expect(res.statusCode).toBe(200)
    const { uuids } = res.json().data
    expect(uuids).toHaveLength(1)
    expect(uuids[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })

  it('uuid: v5 of RFC 9562 A.4, in urn form', async () => {
    const res = await t.post('/v1/id/uuid', {
      version: 5,
      namespace: 'dns',
      name: 'www.example.com',
      format: 'urn',
    })
    expect(res.json()).toEqual({
      ok: true,
      data: { uuids: ['urn:uuid:2ed6657d-e927-568b-95e1-2665a8aea6a2'] },
    })
  })

  it('uuid: 1000 v7s strictly increasing', async () => {
    const res = await t.post('/v1/id/uuid', { version: 7, count: 1000, format: 'compact' })
    const { uuids } = res.json().data as { uuids: string[] }
    expect(uuids).toHaveLength(1000)
    for (let i = 1; i < uuids.length; i++) expect(uuids[i]! > uuids[i - 1]!).toBe(true)
  })

  it('uuid: refuses bad options with codes', async () => {
    const count = await t.post('/v1/id/uuid', { count: 1001, version: 2 })
    expect(count.statusCode).toBe(400)
    expect(
      count
        .json()
        .error.details.issues.map((i: { path: string }) => i.path)
        .sort(),
    ).toEqual(['count', 'version'])
    const ns = await t.post('/v1/id/uuid', { version: 3, namespace: 'not-a-uuid', name: 'x' })
    expect(ns.json().error).toMatchObject({
      code: 'ERR_INVALID_UUID',
      details: { field: 'namespace', position: 0 },
    })
    const name = await t.post('/v1/id/uuid', { version: 5, namespace: 'url' })
    expect(name.json().error).toMatchObject({
      code: 'ERR_VALIDATION',
      details: { issues: [{ path: 'name' }] },
    })
  })

  it('inspect: decodes RFC 9562 A.6 (v7)', async () => {
    const res = await t.post('/v1/id/uuid/inspect', { uuid: 'urn:uuid:017F22E2-79B0-7CC3-98C4-DC0C0C07398F' })
    expect(res.json()).toEqual({
      ok: true,
      data: {
        valid: true,
        normalized: '017f22e2-79b0-7cc3-98c4-dc0c0c07398f',
        input_format: 'urn',
        variant: 'rfc9562',
        version: 7,
        special: null,
        description: 'version 7: Unix Epoch time-based',
        timestamp: '2022-02-22T19:22:22.000Z',
        unix_ms: 1645557742000,
      },
    })
  })

  it('inspect: a valid-looking UUID of no defined version is 200 with valid: false', async () => {
    const res = await t.post('/v1/id/uuid/inspect', { uuid: '017f22e2-79b0-0cc3-98c4-dc0c0c07398f' })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toMatchObject({ valid: false, version: 0 })
  })

  it('inspect: not a UUID is 400 ERR_INVALID_UUID with the position', async () => {
    const res = await t.post('/v1/id/uuid/inspect', { uuid: '017f22e2-79b0-7cc3-98c4-dc0c0c0739xf' })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({
      code: 'ERR_INVALID_UUID',
      details: { field: 'uuid', position: 34, reason: 'expected a hex digit' },
    })
  })

  it('ulid: 1000 monotonic ULIDs strictly increasing; 1001 and 0 refused', async () => {
    const res = await t.post('/v1/id/ulid', { count: 1000, monotonic: true })
    expect(res.statusCode).toBe(200)
    const { ulids } = res.json<{ data: { ulids: string[] } }>().data
    expect(ulids).toHaveLength(1000)
    expect([...ulids].sort()).toEqual(ulids)
    expect(new Set(ulids).size).toBe(1000)
    for (const count of [1001, 0]) {
      const refused = await t.post('/v1/id/ulid', { count })
      expect(refused.statusCode).toBe(400)
      expect(refused.json().error.details.issues[0].path).toBe('count')
    }
    expect((await t.post('/v1/id/ulid', {})).json().data.ulids).toHaveLength(1)
  })

  it('ulid/inspect: time and randomness; a bad ULID is 400 ERR_INVALID_ULID with its position', async () => {
    const res = await t.post('/v1/id/ulid/inspect', { ulid: '01arz3ndektsv4rrffq69g5fav' })
    expect(res.json().data).toMatchObject({
      ulid: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
      canonical: false,
      unix_ms: 1469922850259,
      timestamp: '2016-07-30T23:54:10.259Z',
    })
    const bad = await t.post('/v1/id/ulid/inspect', { ulid: '01ARZ3NDEKTSV4RRFFQ69G5FAU' })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().error).toMatchObject({ code: 'ERR_INVALID_ULID', details: { position: 25 } })
  })

  it('nanoid: custom alphabet, size and count', async () => {
    const res = await t.post('/v1/id/nanoid', { alphabet: '01', size: 64, count: 3 })
    const { ids } = res.json().data
    expect(ids).toHaveLength(3)
    for (const id of ids) expect(id).toMatch(/^[01]{64}$/)
  })

  it('nanoid: refuses duplicates and out-of-range sizes', async () => {
    const dup = await t.post('/v1/id/nanoid', { alphabet: 'abcb' })
    expect(dup.json().error).toMatchObject({
      code: 'ERR_VALIDATION',
      details: { issues: [{ path: 'alphabet', position: 3 }] },
    })
    const size = await t.post('/v1/id/nanoid', { size: 1 })
    expect(size.json().error).toMatchObject({
      code: 'ERR_VALIDATION',
      details: { issues: [{ path: 'size' }] },
    })
  })

  it('fuzz: hostile bodies never produce a 5xx and always an envelope', async () => {
    const bodies: [string, fc.Arbitrary<unknown>][] = [
      [
        '/v1/id/uuid',
        fc.record(
          {
            version: fc.oneof(fc.constantFrom(1, 3, 4, 5, 6, 7), hostile),
            count: fc.oneof(fc.integer({ min: 1, max: 5 }), hostile),
            namespace: fc.oneof(fc.constantFrom('dns', 'url', 'oid', 'x500'), fc.uuid(), hostile),
            name: hostile,
            name_encoding: fc.oneof(fc.constantFrom('utf8', 'hex', 'base64', 'base64url'), hostile),
            format: fc.oneof(fc.constantFrom('standard', 'compact', 'urn', 'upper'), hostile),
          },
          { requiredKeys: [] },
        ),
      ],
      ['/v1/id/uuid/inspect', fc.record({ uuid: hostile }, { requiredKeys: [] })],
      [
        '/v1/id/ulid',
        fc.record(
          {
            count: fc.oneof(fc.integer({ min: 0, max: 5 }), hostile),
            monotonic: fc.oneof(fc.boolean(), hostile),
          },
          { requiredKeys: [] },
        ),
      ],
      [
        '/v1/id/ulid/inspect',
        fc.record(
          {
            ulid: fc.oneof(
              fc.ulid(),
              fc.ulid().map((u) => u.toLowerCase()),
              hostile,
            ),
          },
          { requiredKeys: [] },
        ),
      ],
      [
        '/v1/id/nanoid',
        fc.record(
          {
            size: fc.oneof(fc.integer({ min: 0, max: 300 }), hostile),
            alphabet: fc.oneof(fc.string({ unit: anyUnit, minLength: 1, maxLength: 300 }), hostile),
            count: fc.oneof(fc.integer({ min: 0, max: 20 }), hostile),
          },
          { requiredKeys: [] },
        ),
      ],
    ]
    for (const [url, arbitrary] of bodies) {
      const body = fc.oneof(
        { weight: 6, arbitrary },
        fc.jsonValue({ maxDepth: 4 }),
        fc.dictionary(
          fc.constantFrom('__proto__', 'constructor', 'uuid', 'alphabet'),
          fc.jsonValue({ maxDepth: 2 }),
        ),
      )
      await fc.assert(
        fc.asyncProperty(body, async (b) => {
          expectEnvelope(await t.post(url, JSON.stringify(b)))
        }),
        { numRuns: 200 },
      )
      expectEnvelope(await t.post(url, `{"uuid":${'['.repeat(5000)}${']'.repeat(5000)}}`))
      expectEnvelope(await t.post(url, '{"__proto__":{"count":1000},"constructor":{"prototype":{}}}'))
    }
    expect(({} as Record<string, unknown>).count).toBeUndefined()
  })
})
