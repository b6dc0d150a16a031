import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEXT_FORMATS } from '../../../src/ops/text/codecs.ts'
import { expectEnvelope } from '../../helpers/envelope.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '\ud800',
    'a\udc00b',
    '__proto__',
    'constructor',
    '%',
    '%C3',
    '&#',
    '&#x110000;',
    '\\u{',
    '=\r\n',
    'xn--',
  ),
)
const hostileValue = fc.oneof(
  hostileString,
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(1e308, -0, 2 ** 64, null, true, [], {}),
)
const format = fc.oneof(fc.constantFrom(...TEXT_FORMATS), hostileValue)

describe('/v1/text', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t.close())

  it('encodes and decodes in the envelope', async () => {
    const enc = await t.post('/v1/text/encode', { input: 'münchen.de', format: 'punycode' })
    expect(enc.statusCode).toBe(200)
    expect(enc.json()).toEqual({ ok: true, data: { output: 'xn--mnchen-3ya.de', format: 'punycode' } })
    const dec = await t.post('/v1/text/decode', { input: 'caf%C3%A9%20%26%20cr%C3%A8me', format: 'url' })
    expect(dec.json()).toEqual({ ok: true, data: { output: 'café & crème', format: 'url' } })
  })

  it('round-trips every format through HTTP', async () => {
    // 48 bytes of UTF-8: whole groups for z85
    const text = `Tom & "Jerry's" <café> 😀 100% = a+b\r\nend!!!!`
    for (const f of TEXT_FORMATS.filter((x) => x !== 'punycode')) {
      const enc = await t.post('/v1/text/encode', { input: text, format: f })
      expect(enc.statusCode).toBe(200)
      const dec = await t.post('/v1/text/decode', { input: enc.json().data.output, format: f })
      expect(dec.json().data).toEqual({ output: text, format: f })
    }
  })

  it('refuses malformed input with ERR_INVALID_ENCODING, the format and the position', async () => {
    const cases: [string, string, string, number][] = [
      ['decode', 'url', 'ok%E2%82', 2],
      ['decode', 'hex', '41 4', 3],
      ['decode', 'xml', 'a &#xZZ;', 2],
      ['decode', 'quoted_printable', 'x=4', 1],
      ['encode', 'hex', 'ab\ud800', 2],
    ]
    for (const [op, f, input, position] of cases) {
      const res = await t.post(`/v1/text/${op}`, JSON.stringify({ input, format: f }))
      expect(res.statusCode).toBe(400)
      expect(res.json().error).toMatchObject({
        type: 'invalid_request',
        code: 'ERR_INVALID_ENCODING',
        details: { format: f, position },
      })
    }
  })

  it('refuses an unknown format with ERR_VALIDATION', async () => {
    const res = await t.post('/v1/text/encode', { input: 'x', format: 'base36' })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({
      code: 'ERR_VALIDATION',
      details: { issues: [{ path: 'format' }] },
    })
  })

  it('normalizes', async () => {
    const res = await t.post('/v1/text/normalize', { input: 'e\u0301', form: 'NFC' })
    expect(res.json()).toEqual({ ok: true, data: { output: '\u00e9', form: 'NFC', changed: true } })
    const nfkd = await t.post('/v1/text/normalize', { input: '\ufb01', form: 'NFKD' })
    expect(nfkd.json().data).toEqual({ output: 'fi', form: 'NFKD', changed: true })
  })

  it('inspects, including text with a lone surrogate', async () => {
    const res = await t.post('/v1/text/inspect', { input: 'e\u0301 \u{1F44D}\n' })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toMatchObject({
      utf16_units: 6,
      code_points: 5,
      graphemes: 4,
      utf8_bytes: 9,
      lines: 1,
      well_formed: true,
      normalized: { nfc: false, nfd: true, nfkc: false, nfkd: true },
    })
    const lone = await t.post('/v1/text/inspect', '{"input":"a\\udc00"}')
    expect(lone.json().data).toMatchObject({ well_formed: false, lone_surrogate_position: 1, utf8_bytes: 4 })
  })

  it('is documented in the OpenAPI document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })
    const doc = res.json()
    const paths = doc.paths
    for (const op of ['encode', 'decode', 'normalize', 'inspect'])
      expect(paths[`/v1/text/${op}`].post).toBeDefined()
    // the request body is a named component schema
    const ref: string = paths['/v1/text/encode'].post.requestBody.content['application/json'].schema.$ref
    const schema = doc.components.schemas[ref.replace('#/components/schemas/', '')]
    expect(schema.properties.format.enum).toEqual([...TEXT_FORMATS])
  })

  for (const op of ['encode', 'decode']) {
    it(`fuzz: arbitrary bodies never produce a 5xx (${op})`, async () => {
      const body = fc.oneof(
        fc.jsonValue(),
        fc.object(),
        fc.record({ input: hostileValue, format }, { requiredKeys: [] }),
        fc.record({ input: hostileString, format: fc.constantFrom(...TEXT_FORMATS) }),
      )
      await fc.assert(
        fc.asyncProperty(body, async (payload) => {
          expectEnvelope(await t.post(`/v1/text/${op}`, payload))
        }),
        { numRuns: 200 },
      )
    })
  }

  it('fuzz: arbitrary bodies never produce a 5xx (normalize, inspect)', async () => {
    const body = fc.oneof(
      fc.jsonValue(),
      fc.object(),
      fc.record(
        { input: hostileValue, form: fc.oneof(fc.constantFrom('NFC', 'NFD', 'NFKC', 'NFKD'), hostileValue) },
        { requiredKeys: [] },
      ),
    )
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('normalize', 'inspect'), async (payload, op) => {
        expectEnvelope(await t.post(`/v1/text/${op}`, payload))
      }),
      { numRuns: 200 },
    )
  })

  it('hostile raw bodies: "__proto__" keys and deep nesting', async () => {
    const proto = await t.post(
      '/v1/text/encode',
      '{"__proto__":{"format":"hex"},"input":"a","format":"rot13"}',
    )
    expect(proto.statusCode).toBe(400)
    expect(proto.json().error.details.issues[0].path).toBe('__proto__')
    expect(({} as { format?: unknown }).format).toBeUndefined()
    const deep = await t.post('/v1/text/inspect', `{"input":${'['.repeat(50000)}${']'.repeat(50000)}}`)
    expectEnvelope(deep)
    expect(deep.statusCode).toBe(400)
  })
})
