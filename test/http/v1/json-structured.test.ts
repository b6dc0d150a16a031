import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

// /v1/json/validate and /v1/json/query through the gateway: the envelope, the lossless body, the error
// codes, and each plan cap at the cap and one past it (the free plan's: 100 instances, 100 output units,
// 10,000 result nodes).

describe('POST /v1/json/validate and /v1/json/query on the free plan', () => {
  let t: TestApp
  beforeAll(async () => {
    // the free plan's caps, without its five requests a second
    const PLANS = JSON.stringify({ free: { key_rate_per_second: 1e6, workspace_rate_per_second: 1e6 } })
    t = await startTestApp({ plan: 'free', env: { PLANS } })
  })
  afterAll(() => t.close())

  const raw = (path: string, text: string) =>
    t.app.inject({
      method: 'POST',
      url: path,
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      payload: text,
    })

  it('reads numbers exactly: 12345678901234567891 is above a maximum of 12345678901234567890', async () => {
    const res = await raw(
      '/v1/json/validate',
      '{"schema":{"maximum":12345678901234567890},"instance":12345678901234567891}',
    )
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data).toMatchObject({ valid: false, errors: [{ keyword_location: '/maximum' }] })
    const query = await raw(
      '/v1/json/query',
      '{"document":[1.0,12345678901234567891],"path":"$[?@ > 12345678901234567890]"}',
    )
    expect(query.statusCode, query.body).toBe(200)
    expect(query.body).toContain('"values":[12345678901234567891]')
  })

  it('hands a small heavy body with exact numbers to the pool intact (json.validate; json.patch `copy`)', async () => {
    // under the inline bound, parsed on the event loop: heavy, so it crosses to a pool thread as its text
    const patch = await raw(
      '/v1/json/patch',
      '{"document":{"a":1.50},"patch":[{"op":"copy","from":"/a","path":"/b"}]}',
    )
    expect(patch.statusCode, patch.body).toBe(200)
    expect(patch.body).toBe('{"ok":true,"data":{"result":{"a":1.50,"b":1.50}}}')
  })

  it('answers 100 instances and refuses 101 (json_validate_instances)', async () => {
    const at = await t.post('/v1/json/validate', { schema: true, instances: Array(100).fill(1) })
    expect(at.statusCode, at.body).toBe(200)
    const past = await t.post('/v1/json/validate', { schema: true, instances: Array(101).fill(1) })
    expect(past.statusCode).toBe(400)
    expect(past.json().error.code).toBe('ERR_VALIDATION')
  })

  it('lists 100 output units and counts the rest (json_validate_errors)', async () => {
    const res = await t.post('/v1/json/validate', {
      schema: { type: 'string' },
      instances: Array(100).fill(1),
    })
    expect(res.json().data.results.every((r: { errors: unknown[] }) => r.errors.length === 1)).toBe(true)
    const past = await t.post('/v1/json/validate', {
      schema: { required: ['a'], type: 'string' },
      instances: Array(51).fill({}),
    })
    expect(past.json().data.errors_omitted).toBe(2)
  })

  it('answers 10,000 nodes and refuses 10,001 (json_query_results)', async () => {
    const document = Array(10_001).fill(0)
    const at = await t.post('/v1/json/query', { document, path: '$[:10000]' })
    expect(at.statusCode, at.body).toBe(200)
    const past = await t.post('/v1/json/query', { document, path: '$[*]' })
    expect(past.statusCode).toBe(422)
    expect(past.json().error).toMatchObject({
      code: 'ERR_RESULT_TOO_LARGE',
      details: { max_results: 10_000 },
    })
  })

  it('names what it refuses: a path by position, a reference, a pattern', async () => {
    const path = await t.post('/v1/json/query', { document: {}, path: '$[?@.a ==]' })
    expect(path.statusCode).toBe(400)
    expect(path.json().error).toMatchObject({ code: 'ERR_INVALID_JSONPATH', details: { position: 9 } })
    const ref = await t.post('/v1/json/validate', {
      schema: { $ref: 'https://example.com/s.json' },
      instance: 1,
    })
    expect(ref.json().error).toMatchObject({
      code: 'ERR_SCHEMA_REF_UNRESOLVED',
      details: { ref: 'https://example.com/s.json' },
    })
    const pattern = await t.post('/v1/json/validate', { schema: { pattern: '(a)\\1' }, instance: 'aa' })
    expect(pattern.json().error.code).toBe('ERR_UNSUPPORTED_REGEX')
  })
})
