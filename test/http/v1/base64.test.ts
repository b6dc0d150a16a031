import { Readable } from 'node:stream'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectEnvelope } from '../../helpers/envelope.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '\ud800',
    'Zm9v\udc00',
    '__proto__',
    'constructor',
    'Zg==',
    'Zg',
    '+/-_',
    '====',
    ' \n',
    'Z',
  ),
)
const hostileValue = fc.oneof(
  hostileString,
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(1e308, -0, 2 ** 64, null, true, [], {}),
)
const option = (values: string[]) => fc.oneof(fc.constantFrom(...values), hostileValue)

describe('/v1/base64', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t.close())

  function raw(url: string, payload: Buffer | string | Readable, headers: Record<string, string> = {}) {
    return t.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/octet-stream', ...headers },
      payload,
    })
  }

  it('encodes a JSON body', async () => {
    const res = await t.post('/v1/base64/encode', { input: 'foobar' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ ok: true, data: { output: 'Zm9vYmFy', variant: 'standard' } })
    const url = await t.post('/v1/base64/encode', { input: 'fbffbf', input_encoding: 'hex', variant: 'url' })
    expect(url.json().data).toEqual({ output: '-_-_', variant: 'url' })
    const unpadded = await t.post('/v1/base64/encode', { input: 'f', padding: false })
    expect(unpadded.json().data.output).toBe('Zg')
  })

  it('encodes a raw octet-stream body with options from the query string', async () => {
    const res = await raw('/v1/base64/encode?variant=url&padding=true', Buffer.from([0xfb, 0xff]))
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toEqual({ output: '-_8=', variant: 'url' })
    const plain = await raw('/v1/base64/encode', Buffer.from('fo'))
    expect(plain.json().data).toEqual({ output: 'Zm8=', variant: 'standard' })
  })

  it('answers the Base64 text raw for Accept: application/octet-stream', async () => {
    const res = await t.post('/v1/base64/encode', { input: 'foob' }, { accept: 'application/octet-stream' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/octet-stream')
    expect(res.payload).toBe('Zm9vYg==')
  })

  it('decodes a JSON body, detecting the alphabet', async () => {
    const res = await t.post('/v1/base64/decode', { input: 'Zm9v\nYmFy' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      ok: true,
      data: { output: 'foobar', output_encoding: 'utf8', bytes: 6, valid_utf8: true, variant: 'standard' },
    })
    const hex = await t.post('/v1/base64/decode', { input: '-_-_', output_encoding: 'hex' })
    expect(hex.json().data).toMatchObject({ output: 'fbffbf', variant: 'url', valid_utf8: false })
    const lossy = await t.post('/v1/base64/decode', { input: '//79' })
    expect(lossy.json().data).toMatchObject({ output: '\ufffd\ufffd\ufffd', bytes: 3, valid_utf8: false })
  })

  it('answers the decoded bytes raw for Accept: application/octet-stream', async () => {
    const res = await t.post('/v1/base64/decode', { input: '//79' }, { accept: 'application/octet-stream' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/octet-stream')
    expect(res.rawPayload.toString('hex')).toBe('fffefd')
  })

  it('decodes a raw octet-stream body, options from the query, raw or JSON out', async () => {
    const json = await raw('/v1/base64/decode?output_encoding=hex&strict=true', 'Zm9vYg==')
    expect(json.json().data).toMatchObject({ output: '666f6f62', output_encoding: 'hex', bytes: 4 })
    const bytes = await raw('/v1/base64/decode', 'Zm9v\r\nYmFy\r\n', { accept: 'application/octet-stream' })
    expect(bytes.rawPayload.toString()).toBe('foobar')
    const strict = await raw('/v1/base64/decode?strict=true', 'Zm9v\r\nYmFy')
    expect(strict.statusCode).toBe(400)
    expect(strict.json().error).toMatchObject({ code: 'ERR_INVALID_BASE64', details: { position: 4 } })
    // positions in a raw body are byte offsets
    const bad = await raw('/v1/base64/decode', Buffer.from('Zm9vé', 'utf8'))
    expect(bad.json().error).toMatchObject({ code: 'ERR_INVALID_BASE64', details: { position: 4 } })
  })

  it('refuses bad Base64 with ERR_INVALID_BASE64 and the position', async () => {
    const cases: [Record<string, unknown>, number][] = [
      [{ input: 'Zm9v!' }, 4],
      [{ input: 'Zm9vY' }, 4],
      [{ input: 'ab+c-d' }, 4],
      [{ input: 'Zm9v YmFy', strict: true }, 4],
      [{ input: 'Zh==', strict: true }, 1],
      [{ input: 'Zm9vYg', variant: 'standard', strict: true }, 6],
    ]
    for (const [body, position] of cases) {
      const res = await t.post('/v1/base64/decode', body)
      expect(res.statusCode).toBe(400)
      expect(res.json().error).toMatchObject({
        type: 'invalid_request',
        code: 'ERR_INVALID_BASE64',
        details: { position },
      })
    }
  })

  it('refuses lone surrogates and schema violations with their codes', async () => {
    const lone = await t.post('/v1/base64/encode', '{"input":"ab\\ud800"}')
    expect(lone.json().error).toMatchObject({ code: 'ERR_INVALID_ENCODING', details: { position: 2 } })
    const bad = await t.post('/v1/base64/decode', { input: 1, variant: 'base32', strict: 'yes' })
    expect(bad.statusCode).toBe(400)
    const paths = bad
      .json()
      .error.details.issues.map((i: { path: string }) => i.path)
      .sort()
    expect(paths).toEqual(['input', 'strict', 'variant'])
    const query = await raw('/v1/base64/decode?strict=maybe', 'Zg==')
    expect(query.json().error).toMatchObject({
      code: 'ERR_VALIDATION',
      details: { issues: [{ path: 'query.strict' }] },
    })
  })

  it('cuts off a raw body streamed past the plan limit', async () => {
    const free = await startTestApp({ plan: 'free' })
    try {
      const chunk = Buffer.alloc(64 * 1024, 0x41)
      const stream = Readable.from(
        (function* () {
          for (let i = 0; i < 40; i++) yield chunk
        })(),
      )
      const res = await free.app.inject({
        method: 'POST',
        url: '/v1/base64/encode',
        headers: { authorization: `Bearer ${free.key}`, 'content-type': 'application/octet-stream' },
        payload: stream,
      })
      expect(res.statusCode).toBe(413)
      expect(res.json().error).toMatchObject({
        code: 'ERR_PAYLOAD_TOO_LARGE',
        details: { limit_bytes: 1024 * 1024 },
      })
    } finally {
      await free.close()
    }
  })

  it('is documented in the OpenAPI document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })
    const paths = res.json().paths
    expect(paths['/v1/base64/encode'].post.operationId).toBe('base64Encode')
    expect(paths['/v1/base64/decode'].post.requestBody.content['application/octet-stream']).toBeDefined()
    expect(paths['/v1/base64/decode'].post.responses['400'].description).toContain('ERR_INVALID_BASE64')
  })

  it('fuzz: arbitrary bodies never produce a 5xx (encode)', async () => {
    const body = fc.oneof(
      fc.jsonValue(),
      fc.object(),
      fc.record(
        {
          input: hostileValue,
          input_encoding: option(['utf8', 'hex', 'base64', 'base64url']),
          variant: option(['standard', 'url']),
          padding: fc.oneof(fc.boolean(), hostileValue),
        },
        { requiredKeys: [] },
      ),
    )
    await fc.assert(
      fc.asyncProperty(body, fc.boolean(), async (payload, octets) => {
        const headers: Record<string, string> = octets ? { accept: 'application/octet-stream' } : {}
        const res = await t.post('/v1/base64/encode', payload, headers)
        if (res.statusCode === 200 && octets)
          expect(res.headers['content-type']).toBe('application/octet-stream')
        else expectEnvelope(res)
      }),
      { numRuns: 200 },
    )
  })

  it('fuzz: arbitrary bodies never produce a 5xx (decode)', async () => {
    const body = fc.oneof(
      fc.jsonValue(),
      fc.object(),
      fc.record(
        {
          input: fc.oneof(
            hostileValue,
            fc.base64String(),
            fc.string({ unit: fc.constantFrom(...'Zm9v+/-_= \n!'.split('')) }),
          ),
          variant: option(['auto', 'standard', 'url']),
          output_encoding: option(['utf8', 'hex', 'base64', 'base64url']),
          strict: fc.oneof(fc.boolean(), hostileValue),
        },
        { requiredKeys: [] },
      ),
    )
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        expectEnvelope(await t.post('/v1/base64/decode', payload))
      }),
      { numRuns: 200 },
    )
  })

  it('fuzz: arbitrary raw bodies and query strings never produce a 5xx', async () => {
    const query = fc.record(
      {
        variant: option(['auto', 'standard', 'url']),
        strict: option(['true', 'false']),
        padding: option(['true', 'false']),
      },
      { requiredKeys: [] },
    )
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 64 }),
        query,
        fc.constantFrom('encode', 'decode'),
        async (bytes, q, op) => {
          const qs = new URLSearchParams(
            Object.entries(q).map(([k, v]): [string, string] => [
              k,
              typeof v === 'string' ? v : JSON.stringify(v),
            ]),
          ).toString()
          expectEnvelope(await raw(`/v1/base64/${op}?${qs}`, Buffer.from(bytes)))
        },
      ),
      { numRuns: 200 },
    )
  })

  it('hostile raw bodies: "__proto__" keys and deep nesting', async () => {
    const proto = await t.post(
      '/v1/base64/encode',
      '{"__proto__":{"variant":"url"},"input":"fbffbf","input_encoding":"hex"}',
    )
    // an own "__proto__" member is an unknown field like any other: refused and named, never applied
    expect(proto.statusCode).toBe(400)
    expect(proto.json().error.details.issues).toEqual([
      { path: '__proto__', message: 'Unknown field "__proto__".' },
    ])
    expect(({} as { variant?: unknown }).variant).toBeUndefined()
    const deep = await t.post('/v1/base64/decode', `{"input":${'['.repeat(50000)}${']'.repeat(50000)}}`)
    expectEnvelope(deep)
    expect(deep.statusCode).toBe(400)
  })
})
