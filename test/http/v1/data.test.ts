import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { INPUT_WINDOW } from '../../../workers/stream-protocol.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

// POST /v1/data/convert through the gateway: the JSON body inline and on the pool, the raw body and the raw
// answer, the plan's cap on a raw body, the errors' envelopes.
describe('/v1/data/convert', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({
      unthrottled: true,
      env: { PLANS: JSON.stringify({ business: { data_max_input_bytes: 4096 } }) },
    })
  })
  afterAll(() => t.close())

  function raw(query: string, payload: string, headers: Record<string, string> = {}) {
    return t.app.inject({
      method: 'POST',
      url: `/v1/data/convert?${query}`,
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/octet-stream', ...headers },
      payload,
    })
  }

  it('converts a JSON body, small ones without YAML inline and others on the pool, exactly', async () => {
    const small = await t.post('/v1/data/convert', {
      input: '{"a":9223372036854775807,"b":1.0}',
      from: 'json',
      to: 'toml',
    })
    expect(small.statusCode).toBe(200)
    expect(small.headers['server-timing']).toBeUndefined()
    expect(small.json()).toEqual({
      ok: true,
      data: { output: 'a = 9223372036854775807\nb = 1.0\n', bytes: 32 },
    })
    const items = Array.from({ length: 20_000 }, (_, i) => `- {id: ${i}, ratio: 1.0}`).join('\n')
    const large = await t.post('/v1/data/convert', {
      input: items,
      from: 'yaml',
      to: 'json',
      options: { indent: 0 },
    })
    expect(large.statusCode).toBe(200)
    expect(large.headers['server-timing']).toMatch(/dispatch;desc="paid"/)
    expect(large.json().data.output.startsWith('[{"id":0,"ratio":1.0},{"id":1,"ratio":1.0}')).toBe(true)
  })

  it('takes a raw body with the formats and options in the query, and answers raw bytes or JSON', async () => {
    const csv = 'id,price\r\n1,9.90\r\n'
    const bytes = await raw('from=csv&to=json&types=infer&indent=0', csv, {
      accept: 'application/octet-stream',
    })
    expect(bytes.statusCode).toBe(200)
    expect(bytes.headers['content-type']).toBe('application/octet-stream')
    expect(bytes.body).toBe('[{"id":1,"price":9.90}]')
    const json = await raw('from=csv&to=yaml', csv)
    expect(json.json()).toEqual({ ok: true, data: { output: '- id: "1"\n  price: "9.90"\n', bytes: 26 } })
  })

  it("refuses a raw body without its formats, or past the plan's data_max_input_bytes", async () => {
    const missing = await raw('to=json', 'a: 1')
    expect(missing.statusCode).toBe(400)
    expect(missing.json().error).toMatchObject({
      code: 'ERR_VALIDATION',
      details: { issues: [{ path: 'from' }] },
    })
    const atCap = await raw('from=json&to=json&indent=0', `"${'x'.repeat(4094)}"`)
    expect(atCap.statusCode).toBe(200)
    const past = await raw('from=json&to=json&indent=0', `"${'x'.repeat(4095)}"`)
    expect(past.statusCode).toBe(413)
    expect(past.json().error).toMatchObject({ code: 'ERR_PAYLOAD_TOO_LARGE', details: { limit_bytes: 4096 } })
  })

  it('answers refusals with their codes and details', async () => {
    const toml = await t.post('/v1/data/convert', {
      input: '{"a":12345678901234567890}',
      from: 'json',
      to: 'toml',
    })
    expect(toml.statusCode).toBe(400)
    expect(toml.json().error).toMatchObject({
      code: 'ERR_UNREPRESENTABLE',
      details: { path: '/a', reason: 'integer_range', to: 'toml' },
    })
    const option = await t.post('/v1/data/convert', {
      input: '{}',
      from: 'json',
      to: 'yaml',
      options: { quote: "'" },
    })
    expect(option.json().error).toMatchObject({
      code: 'ERR_VALIDATION',
      details: { issues: [{ path: 'options.quote' }] },
    })
    const yaml = await t.post('/v1/data/convert', { input: 'a: [1', from: 'yaml', to: 'json' })
    expect(yaml.json().error.code).toBe('ERR_INVALID_YAML')
    const unknown = await t.post('/v1/data/convert', { input: '{}', from: 'json', to: 'xml' })
    expect(unknown.json().error.code).toBe('ERR_VALIDATION')
  })
})

// A raw body reaches the thread through a ring of INPUT_WINDOW bytes whose pieces are overwritten once read:
// the convert step holds the whole document, so it must copy each piece (it held views of the ring, and a
// 5 MiB YAML body was read as the ring's last contents: "Invalid YAML at line 4").
describe('/v1/data/convert with a raw body larger than the stream ring', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({
      unthrottled: true,
      env: { PLANS: JSON.stringify({ business: { data_max_input_bytes: 64 * 2 ** 20 } }) },
    })
  })
  afterAll(() => t.close())

  it('converts every byte of it, in order', async () => {
    const item = (i: number) => `- name: svc-${i}\n  replicas: ${i % 7}\n  labels: {app: svc-${i}}\n`
    let text = ''
    const items: unknown[] = []
    for (let i = 0; text.length < INPUT_WINDOW + 2 ** 19; i++) {
      text += item(i)
      items.push({ name: `svc-${i}`, replicas: i % 7, labels: { app: `svc-${i}` } })
    }
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/data/convert?from=yaml&to=json&indent=0',
      headers: {
        authorization: `Bearer ${t.key}`,
        'content-type': 'application/octet-stream',
        accept: 'application/octet-stream',
      },
      payload: text,
    })
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200)
    // the document, written down as the items were (not parsed back by the library under test)
    expect(res.body).toBe(JSON.stringify(items))
  }, 60_000)
})
