import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { patch as jdpPatch } from 'jsondiffpatch'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_DEPTH } from '../../../src/ops/json/diff/keys.ts'
import { jsonEqual } from '../../../src/ops/json/value.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { patched } from '../../ops/json/diff/helpers.ts'
import { editedList } from '../../ops/json/diff/large-helpers.ts'

function expectEnvelope(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBeLessThan(500)
  const body = res.json()
  if (res.statusCode === 200) {
    expect(body.ok).toBe(true)
    expect(body.data).toMatchObject({ equal: expect.any(Boolean), stats: expect.any(Object) })
  } else {
    expect(body.error).toMatchObject({
      type: expect.any(String),
      message: expect.any(String),
      code: expect.any(String),
    })
  }
}

const deepText = (depth: number, open: string, close: string) =>
  open.repeat(depth) + '1' + close.repeat(depth)

describe('/v1/json/diff', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t.close())

  it('answers the delta by default', async () => {
    const res = await t.post('/v1/json/diff', { left: { a: 1, b: [1, 2] }, right: { a: 2, b: [1, 2, 3] } })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      ok: true,
      data: {
        equal: false,
        delta: { a: [1, 2], b: { _t: 'a', 2: [3] } },
        stats: { added: 1, removed: 0, changed: 1, moved: 0 },
      },
    })
  })

  it('answers an RFC 6902 patch that turns left into right, with array_key and moves', async () => {
    const left = {
      users: [
        { id: 1, name: 'Ada' },
        { id: 2, name: 'Bob' },
        { id: 3, name: 'Cy' },
      ],
    }
    const right = {
      users: [
        { id: 3, name: 'Cy' },
        { id: 1, name: 'Ada L.' },
        { id: 4, name: 'Di' },
      ],
    }
    const res = await t.post('/v1/json/diff', { left, right, array_key: 'id', output: 'json_patch' })
    expect(res.statusCode).toBe(200)
    const data = res.json().data
    expect(data.delta).toBeUndefined()
    expect(data.json_patch).toEqual([
      { op: 'remove', path: '/users/1' },
      { op: 'move', from: '/users/1', path: '/users/0' },
      { op: 'add', path: '/users/2', value: { id: 4, name: 'Di' } },
      { op: 'replace', path: '/users/1/name', value: 'Ada L.' },
    ])
    expect(patched(left, data.json_patch)).toEqual(right)
  })

  it('diffs 10k-item arrays (about 1 MB, run on the worker pool): exact stats, a patch that applies', async () => {
    const list = editedList(10_000, 3)
    const left = { items: list.left }
    const right = { items: list.right }
    const res = await t.post('/v1/json/diff', { left, right, array_key: 'id', output: 'both' })
    expect(res.statusCode).toBe(200)
    const data = res.json().data
    expect(data.stats).toEqual(list.expected(true, true))
    expect(jsonEqual(patched(left, data.json_patch), right)).toBe(true)
    expect(jsonEqual(jdpPatch(structuredClone(left), data.delta), right)).toBe(true)
  })

  it('answers equal documents with empty results', async () => {
    const res = await t.post('/v1/json/diff', { left: { a: 1, b: 2 }, right: { b: 2, a: 1 }, output: 'both' })
    expect(res.json().data).toEqual({
      equal: true,
      delta: {},
      json_patch: [],
      stats: { added: 0, removed: 0, changed: 0, moved: 0 },
    })
  })

  it('handles "__proto__" and "constructor" keys as data and leaves Object.prototype alone', async () => {
    const res = await t.post(
      '/v1/json/diff',
      '{"left": {"__proto__": {"a": 1}, "constructor": 1}, "right": {"__proto__": {"a": 2, "polluted": 1}}, "output": "both"}',
    )
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe(
      '{"ok":true,"data":{"equal":false,' +
        '"delta":{"__proto__":{"a":[1,2],"polluted":[1]},"constructor":[1,0,0]},' +
        '"json_patch":[{"op":"replace","path":"/__proto__/a","value":2},' +
        '{"op":"add","path":"/__proto__/polluted","value":1},{"op":"remove","path":"/constructor"}],' +
        '"stats":{"added":1,"removed":1,"changed":1,"moved":0}}}',
    )
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('refuses deep nesting with a 400 ERR_VALIDATION, never a 5xx (10,000 and 100,000 levels)', async () => {
    for (const depth of [MAX_DEPTH + 1, 10_000, 100_000]) {
      const res = await t.post('/v1/json/diff', `{"left": 1, "right": ${deepText(depth, '[', ']')}}`)
      expect(res.statusCode).toBe(400)
      expect(res.json().error).toMatchObject({
        code: 'ERR_VALIDATION',
        details: {
          issues: [{ path: 'right', message: `nesting deeper than ${MAX_DEPTH} levels is not supported` }],
        },
      })
    }
    const objects = await t.post('/v1/json/diff', `{"left": ${deepText(10_000, '{"a":', '}')}, "right": 1}`)
    expect(objects.json().error.details.issues[0].path).toBe('left')
    const ok = await t.post('/v1/json/diff', `{"left": 1, "right": ${deepText(MAX_DEPTH, '[', ']')}}`)
    expect(ok.statusCode).toBe(200)
  })

  it('validates the body with located issues', async () => {
    const missing = await t.post('/v1/json/diff', { left: 1 })
    expect(missing.statusCode).toBe(400)
    expect(missing.json().error).toMatchObject({
      code: 'ERR_VALIDATION',
      details: { issues: [{ path: 'right' }] },
    })

    const bad = await t.post('/v1/json/diff', {
      left: 1,
      right: 2,
      output: 'html',
      array_key: '',
      detect_moves: 'yes',
    })
    expect(bad.statusCode).toBe(400)
    const paths = bad
      .json()
      .error.details.issues.map((i: { path: string }) => i.path)
      .sort()
    expect(paths).toEqual(['array_key', 'detect_moves', 'output'])
  })

  it('needs an API key', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/json/diff',
      headers: { 'content-type': 'application/json' },
      payload: '{"left":1,"right":2}',
    })
    expect(res.statusCode).toBe(401)
    expect(res.json().error.code).toBe('ERR_MISSING_API_KEY')
  })

  it('is documented in the OpenAPI document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })
    const doc = res.json()
    const op = doc.paths['/v1/json/diff'].post
    expect(op.operationId).toBe('jsonDiff')
    // the request body is a named component schema
    const ref: string = op.requestBody.content['application/json'].schema.$ref
    expect(ref).toBe('#/components/schemas/JsonDiffRequest')
    const schema = doc.components.schemas.JsonDiffRequest
    expect(JSON.stringify(schema)).toContain('json_patch')
    expect(op.responses['400'].description).toContain('ERR_VALIDATION')
  })

  it('fuzz: arbitrary bodies never produce a 5xx', async () => {
    const hostileKey = fc.constantFrom('__proto__', 'constructor', 'toString', '_t', '\u0000', 'id', '\ud800')
    const hostile = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.dictionary(hostileKey, fc.jsonValue({ maxDepth: 2 })),
      fc.array(fc.dictionary(hostileKey, fc.jsonValue({ maxDepth: 1 })), { maxLength: 6 }),
      fc.string({ unit: 'binary' }),
      fc.constantFrom<unknown>('\ud800', 1e308, -0, 2 ** 64, null, [], {}),
    )
    const structured = fc.record(
      {
        left: hostile,
        right: hostile,
        array_key: fc.oneof(hostileKey, hostile),
        detect_moves: fc.oneof(fc.boolean(), hostile),
        output: fc.oneof(fc.constantFrom('delta', 'json_patch', 'both'), hostile),
      },
      { requiredKeys: [] },
    )
    const raw = fc.oneof(
      fc
        .nat({ max: 20_000 })
        .map((n) => `{"left": ${deepText(n, '[', ']')}, "right": [1], "output": "both"}`),
      fc.constantFrom(
        '{"left": 1e400, "right": -1e400, "output": "both"}',
        '{"left": "\\ud800", "right": "\\udc00"}',
      ),
    )
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), fc.object(), structured, raw), async (payload) => {
        expectEnvelope(await t.post('/v1/json/diff', payload))
      }),
      { numRuns: 200 },
    )
  })
})
