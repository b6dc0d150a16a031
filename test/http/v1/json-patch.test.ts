import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

function expectEnvelope(res: LightMyRequestResponse): void {
  expect(res.statusCode, res.body).toBeLessThan(500)
  const body = res.json()
  if (res.statusCode === 200) {
    expect(Object.keys(body)).toEqual(['ok', 'data'])
    expect(Object.keys(body.data)).toEqual(['result'])
  } else {
    expect(body.error).toMatchObject({
      type: 'invalid_request',
      message: expect.any(String),
      code: expect.any(String),
    })
  }
}

describe('/v1/json/patch', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t.close())

  it('applies a patch', async () => {
    const res = await t.post('/v1/json/patch', {
      document: { a: [1, 2], b: { c: 'x' } },
      patch: [
        { op: 'add', path: '/a/1', value: 9 },
        { op: 'move', from: '/b/c', path: '/d' },
        { op: 'test', path: '/a', value: [1, 9, 2] },
      ],
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ ok: true, data: { result: { a: [1, 9, 2], b: {}, d: 'x' } } })
  })

  it('answers ERR_PATCH_TEST_FAILED with the index and path', async () => {
    const res = await t.post('/v1/json/patch', {
      document: { a: 1 },
      patch: [
        { op: 'test', path: '/a', value: 1 },
        { op: 'test', path: '/a', value: '1' },
      ],
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toEqual({
      type: 'invalid_request',
      code: 'ERR_PATCH_TEST_FAILED',
      message: 'Patch operation 1 (test "/a"): the value differs.',
      details: { index: 1, path: '/a', reason: 'the value differs' },
    })
  })

  it('answers ERR_INVALID_PATCH with the index, path and reason', async () => {
    const res = await t.post('/v1/json/patch', {
      document: { a: 1 },
      patch: [{ op: 'remove', path: '/b/c' }],
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toEqual({
      type: 'invalid_request',
      code: 'ERR_INVALID_PATCH',
      message: 'Patch operation 0 (remove "/b/c"): /b does not exist.',
      details: { index: 0, op: 'remove', path: '/b/c', reason: '/b does not exist' },
    })
  })

  it('needs a document and a patch array', async () => {
    for (const body of [{ patch: [] }, { document: 1 }, { document: 1, patch: {} }]) {
      const res = await t.post('/v1/json/patch', body)
      expect(res.statusCode).toBe(400)
      expect(res.json().error.code).toBe('ERR_VALIDATION')
    }
    expect((await t.post('/v1/json/patch', { document: null, patch: [] })).json()).toEqual({
      ok: true,
      data: { result: null },
    })
  })

  it('keeps "__proto__" as data and never pollutes Object.prototype', async () => {
    const res = await t.post(
      '/v1/json/patch',
      '{"document":{"__proto__":{"a":1}},"patch":[{"op":"add","path":"/__proto__/polluted","value":true},{"op":"add","path":"/constructor","value":{}}]}',
    )
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe(
      '{"ok":true,"data":{"result":{"__proto__":{"a":1,"polluted":true},"constructor":{}}}}',
    )
    const refused = await t.post('/v1/json/patch', {
      document: {},
      patch: [{ op: 'add', path: '/constructor/prototype/polluted', value: true }],
    })
    expect(refused.json().error.code).toBe('ERR_INVALID_PATCH')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('refuses a 100,000-level document with ERR_VALIDATION instead of overflowing the serializer', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    const res = await t.post('/v1/json/patch', `{"document":${deep},"patch":[]}`)
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({
      code: 'ERR_VALIDATION',
      details: { issues: [{ path: 'document' }] },
    })
  })

  it('fuzz: arbitrary bodies get an envelope, never a 5xx', async () => {
    const pointer = fc.oneof(
      fc
        .array(
          fc.constantFrom(
            'a',
            '0',
            '1',
            '-',
            '__proto__',
            'constructor',
            'prototype',
            '~0',
            '~1',
            '~2',
            '01',
            '',
          ),
          { maxLength: 4 },
        )
        .map((p) => p.map((s) => `/${s}`).join('')),
      fc.string({ maxLength: 6 }),
    )
    const op = fc.record(
      {
        op: fc.oneof(
          fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test'),
          fc.jsonValue({ maxDepth: 1 }),
        ),
        path: fc.oneof(
          { weight: 5, arbitrary: pointer },
          { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
        ),
        from: pointer,
        value: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(1e308, -0, 2 ** 64, 5e-324)),
      },
      { requiredKeys: ['op'] },
    )
    const document = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.dictionary(fc.constantFrom('a', '0', '__proto__', 'constructor'), fc.jsonValue({ maxDepth: 2 })),
    )
    const body = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          document,
          patch: fc.array(
            fc.oneof({ weight: 6, arbitrary: op }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) }),
            { maxLength: 5 },
          ),
        }),
      },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
      { weight: 1, arbitrary: fc.object({ maxDepth: 2 }) },
    )
    await fc.assert(
      fc.asyncProperty(body, async (b) => expectEnvelope(await t.post('/v1/json/patch', b))),
      { numRuns: 200 },
    )
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`
    for (const raw of [
      `{"document":${deep},"patch":[]}`,
      `{"document":{},"patch":[{"op":"add","path":"/a","value":${deep}}]}`,
      `{"document":{},"patch":[{"op":"test","path":"","value":${deep}}]}`,
      `{"document":[],"patch":${deep}}`,
      '{"document":{"__proto__":[]},"patch":[{"op":"copy","from":"/__proto__","path":"/__proto__/-"}]}',
    ]) {
      expectEnvelope(await t.post('/v1/json/patch', raw))
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})
