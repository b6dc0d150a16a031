import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

function expectEnvelope(res: LightMyRequestResponse): void {
  expect(res.statusCode, res.body).toBeLessThan(500)
  const body = res.json()
  if (res.statusCode === 200) {
    expect(body).toEqual({
      ok: true,
      data: {
        output: expect.any(String),
        bytes: expect.any(Number),
        ...(body.data.warnings ? { warnings: expect.any(Array) } : {}),
      },
    })
  } else {
    expect(body.error).toMatchObject({
      type: 'invalid_request',
      message: expect.any(String),
      code: expect.any(String),
    })
  }
}

describe('/v1/json/format', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t.close())

  function raw(query: string, payload: Buffer | string, headers: Record<string, string> = {}, key = t.key) {
    return t.app.inject({
      method: 'POST',
      url: `/v1/json/format${query}`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', ...headers },
      payload,
    })
  }

  it('pretty-prints a JSON body losslessly', async () => {
    const res = await t.post('/v1/json/format', { input: '{"n":12345678901234567890,"f":1.0,"z":-0}' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      ok: true,
      data: { output: '{\n  "n": 12345678901234567890,\n  "f": 1.0,\n  "z": -0\n}', bytes: 54 },
    })
  })

  it('minifies with sorted keys and reports duplicates', async () => {
    const res = await t.post('/v1/json/format', {
      input: '{"b": 1, "a": [1e400], "b": 2}',
      mode: 'minify',
      sort_keys: true,
    })
    expect(res.json().data).toEqual({
      output: '{"a":[1e400],"b":1,"b":2}',
      bytes: 25,
      warnings: [
        {
          code: 'duplicate_key',
          message: 'Duplicate key "b" (kept).',
          key: 'b',
          line: 1,
          column: 24,
          offset: 23,
        },
      ],
    })
  })

  it('refuses invalid JSON text with ERR_INVALID_JSON and its position', async () => {
    const res = await t.post('/v1/json/format', { input: '{\n  "a": [1, 2,]\n}' })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toEqual({
      type: 'invalid_request',
      code: 'ERR_INVALID_JSON',
      message: 'Invalid JSON at line 2, column 14: Trailing comma before ].',
      details: { line: 2, column: 14, offset: 15, reason: 'Trailing comma before ]' },
    })
  })

  it('refuses a lone surrogate in the text', async () => {
    const res = await t.post('/v1/json/format', '{"input":"[\\"a\\ud800\\"]"}')
    expect(res.json().error).toMatchObject({ code: 'ERR_INVALID_JSON', details: { offset: 3 } })
  })

  it('validates options', async () => {
    const res = await t.post('/v1/json/format', { input: '1', indent: 9, mode: 'ugly', sort_keys: 'yes' })
    expect(res.statusCode).toBe(400)
    expect(res.json().error.code).toBe('ERR_VALIDATION')
    expect(
      res
        .json()
        .error.details.issues.map((i: { path: string }) => i.path)
        .sort(),
    ).toEqual(['indent', 'mode', 'sort_keys'])
    expect((await t.post('/v1/json/format', { input: 1 })).json().error.code).toBe('ERR_VALIDATION')
    expect((await t.post('/v1/json/format', { input: '[1]', indent: '\t' })).json().data.output).toBe(
      '[\n\t1\n]',
    )
  })

  it('takes a raw UTF-8 body with options from the query string', async () => {
    const res = await raw('?mode=pretty&indent=4&sort_keys=true', Buffer.from('\ufeff{"é":1,"a":[]}', 'utf8'))
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toEqual({
      output: '{\n    "a": [],\n    "é": 1\n}',
      bytes: 28,
      warnings: [
        {
          code: 'byte_order_mark',
          message: 'A leading byte order mark (U+FEFF) was dropped.',
          line: 1,
          column: 1,
          offset: 0,
        },
      ],
    })
    expect((await raw('?indent=%09', '[1]')).json().data.output).toBe('[\n\t1\n]')
    expect((await raw('?indent=9', '[1]')).json().error.details.issues[0].path).toBe('query.indent')
  })

  it('answers raw bytes for Accept: application/octet-stream', async () => {
    const res = await raw('?mode=minify', '[ "é" , 1.50 ]', { accept: 'application/octet-stream' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/octet-stream')
    expect(res.rawPayload.toString('utf8')).toBe('["é",1.50]')
    const fromJson = await t.post(
      '/v1/json/format',
      { input: '{ }', mode: 'minify' },
      { accept: 'application/octet-stream' },
    )
    expect(fromJson.rawPayload.toString('utf8')).toBe('{}')
  })

  it('refuses invalid UTF-8 in a raw body with offsets', async () => {
    const res = await raw('', Buffer.from([0x5b, 0x22, 0xc3, 0xa9, 0xff, 0x22, 0x5d]))
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({
      code: 'ERR_INVALID_JSON',
      details: {
        line: 1,
        column: 4,
        offset: 3,
        byte_offset: 4,
        reason: 'Invalid UTF-8 sequence starting with byte 0xFF',
      },
    })
    const syntax = await raw('', Buffer.from('["é",]'))
    expect(syntax.json().error.details).toEqual({
      line: 1,
      column: 6,
      offset: 5,
      byte_offset: 6,
      reason: 'Trailing comma before ]',
    })
  })

  it("refuses a raw body over the plan's binary limit", async () => {
    const free = await t.newWorkspace('free')
    const big = Buffer.alloc(1024 * 1024 + 1, 0x20)
    const declared = await raw('', big, {}, free.key)
    expect(declared.statusCode).toBe(413)
    expect(declared.json().error).toMatchObject({
      code: 'ERR_PAYLOAD_TOO_LARGE',
      details: { limit_bytes: 1024 * 1024 },
    })
  })

  it('formats 100,000 levels of nesting, as JSON and as raw bytes', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    const json = await t.post('/v1/json/format', { input: deep, mode: 'minify' })
    expect(json.statusCode).toBe(200)
    expect(json.json().data.output).toBe(deep)
    const objects = '{"a":'.repeat(100_000) + 'true' + '}'.repeat(100_000)
    const rawRes = await raw('?indent=0&sort_keys=true', objects, { accept: 'application/octet-stream' })
    expect(rawRes.statusCode).toBe(200)
    expect(rawRes.rawPayload.length).toBe(objects.length + 2 * 100_000 + 100_000)
    const pretty = await t.post('/v1/json/format', { input: deep })
    expect(pretty.statusCode).toBe(422)
    expect(pretty.json().error).toMatchObject({
      code: 'ERR_COMPUTE_LIMIT',
      details: { reason: 'output_size', limit: 16 * deep.length },
    })
  })

  it('fuzz: arbitrary bodies get an envelope, never a 5xx', async () => {
    const hostile = fc.oneof(
      fc.json({ maxDepth: 4 }),
      fc.string({ unit: fc.nat({ max: 0xffff }).map((n) => String.fromCharCode(n)), maxLength: 40 }),
      fc.constantFrom(
        '[1e400, 12345678901234567890, -0]',
        '{"__proto__": {"x": 1}, "constructor": 1}',
        '"\\ud800"',
        '\ufeff[]',
        '['.repeat(3000),
      ),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v, null, '\t')),
    )
    const body = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record(
          {
            input: hostile,
            mode: fc.constantFrom('pretty', 'minify', 'x'),
            indent: fc.oneof(fc.integer({ min: -1, max: 9 }), fc.constant('\t')),
            sort_keys: fc.boolean(),
          },
          { requiredKeys: ['input'] },
        ),
      },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
      { weight: 1, arbitrary: fc.object({ maxDepth: 2 }) },
    )
    await fc.assert(
      fc.asyncProperty(body, async (b) => expectEnvelope(await t.post('/v1/json/format', b))),
      { numRuns: 200 },
    )
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 64 }),
        fc.constantFrom('', '?mode=minify&sort_keys=true', '?indent=x'),
        async (bytes, query) => expectEnvelope(await raw(query, Buffer.from(bytes))),
      ),
      { numRuns: 200 },
    )
  })
})
