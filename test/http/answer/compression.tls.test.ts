import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPRESS_THRESHOLD } from '../../../src/http/answer/compression.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { h1Request, h2Request, type RawResponse } from '../../helpers/tls-client.ts'

function decoded(res: RawResponse): string {
  const coding = res.headers['content-encoding']
  if (coding === 'br') return brotliDecompressSync(res.body).toString('utf8')
  if (coding === 'gzip') return gunzipSync(res.body).toString('utf8')
  return res.body.toString('utf8')
}

// a Content-Length, when sent, is the length of the bytes on the wire
function lengthRight(res: RawResponse): void {
  const declared = res.headers['content-length']
  if (declared !== undefined) expect(Number(declared)).toBe(res.body.length)
}

describe('compression of JSON answers over real sockets (HTTP/1.1 and HTTP/2)', () => {
  let t: TestApp
  let headers: Record<string, string>
  // a formatted document well above the threshold
  const big = JSON.stringify({
    input: JSON.stringify(
      Array.from({ length: 200 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b'] })),
    ),
    mode: 'pretty',
  })
  beforeAll(async () => {
    t = await startTestApp({ listen: true })
    headers = { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' }
  })
  afterAll(() => t.close())

  const post = (path: string, body: string, extra: Record<string, string> = {}, h2 = false) =>
    (h2 ? h2Request : h1Request)(t.url, {
      method: 'POST',
      path,
      headers: { ...headers, ...extra },
      body,
      ca: t.tls!.cert,
    })

  it('above the threshold: br for "br, gzip", gzip for gzip, identity without Accept-Encoding', async () => {
    const plain = await post('/v1/json/format', big)
    expect(plain.status).toBe(200)
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.body.length).toBeGreaterThan(COMPRESS_THRESHOLD)
    lengthRight(plain)

    const br = await post('/v1/json/format', big, { 'accept-encoding': 'br, gzip' })
    expect(br.headers['content-encoding']).toBe('br')
    expect(String(br.headers.vary)).toMatch(/accept-encoding/i)
    expect(br.body.length).toBeLessThan(plain.body.length / 3)
    expect(decoded(br)).toBe(plain.body.toString('utf8'))
    lengthRight(br)

    const gz = await post('/v1/json/format', big, { 'accept-encoding': 'gzip' })
    expect(gz.headers['content-encoding']).toBe('gzip')
    expect(decoded(gz)).toBe(plain.body.toString('utf8'))
    lengthRight(gz)

    const refused = await post('/v1/json/format', big, { 'accept-encoding': 'br;q=0, gzip;q=0' })
    expect(refused.headers['content-encoding']).toBeUndefined()
    expect(refused.body.equals(plain.body)).toBe(true)
  })

  it('below the threshold: identity, even when br is accepted', async () => {
    const small = await post('/v1/hash/sha256', '{"input":"hello"}', { 'accept-encoding': 'br, gzip' })
    expect(small.status).toBe(200)
    expect(small.body.length).toBeLessThan(COMPRESS_THRESHOLD)
    expect(small.headers['content-encoding']).toBeUndefined()
    expect(small.json()).toMatchObject({ ok: true, data: { algorithm: 'sha256' } })
    lengthRight(small)
  })

  it('HTTP/2 too', async () => {
    const plain = await post('/v1/json/format', big, {}, true)
    const br = await post('/v1/json/format', big, { 'accept-encoding': 'gzip, deflate, br' }, true)
    expect(br.status).toBe(200)
    expect(br.headers['content-encoding']).toBe('br')
    expect(String(br.headers.vary)).toMatch(/accept-encoding/i)
    expect(decoded(br)).toBe(plain.body.toString('utf8'))
    lengthRight(br)
  })

  it('never an octet-stream answer (raw bytes stream back as they are)', async () => {
    const raw = await h1Request(t.url, {
      method: 'POST',
      path: '/v1/json/format?mode=pretty',
      headers: {
        authorization: `Bearer ${t.key}`,
        'content-type': 'application/octet-stream',
        accept: 'application/octet-stream',
        'accept-encoding': 'br, gzip',
      },
      body: JSON.parse(big).input,
      ca: t.tls!.cert,
    })
    expect(raw.status).toBe(200)
    expect(String(raw.headers['content-type'])).toMatch(/octet-stream/)
    expect(raw.headers['content-encoding']).toBeUndefined()
    expect(raw.body.length).toBeGreaterThan(COMPRESS_THRESHOLD)
    expect(JSON.parse(raw.body.toString('utf8'))).toHaveLength(200)
  })

  it('an error envelope above the threshold is compressed like any JSON answer', async () => {
    // 20 unknown fields of 60 characters (an echoed name is cut at 64): an envelope of ~3 KB
    const body = JSON.stringify({
      input: 'x',
      ...Object.fromEntries(
        Array.from({ length: 20 }, (_, i) => [`${'u'.repeat(58)}${String(i).padStart(2, '0')}`, 1]),
      ),
    })
    const res = await post('/v1/hash/sha256', body, { 'accept-encoding': 'gzip' })
    expect(res.status).toBe(400)
    expect(res.headers['content-encoding']).toBe('gzip')
    expect(JSON.parse(decoded(res)).error.code).toBe('ERR_VALIDATION')
  })

  it('/v1/openapi.json: compressed once and cached, br and gzip and identity', async () => {
    const get = (extra: Record<string, string>) =>
      h1Request(t.url, { path: '/v1/openapi.json', headers: extra, ca: t.tls!.cert })
    const plain = await get({})
    const br1 = await get({ 'accept-encoding': 'br, gzip' })
    const br2 = await get({ 'accept-encoding': 'gzip;q=0.5, br' })
    const gz = await get({ 'accept-encoding': 'gzip' })
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(br1.headers['content-encoding']).toBe('br')
    expect(gz.headers['content-encoding']).toBe('gzip')
    for (const r of [plain, br1, gz]) {
      expect(String(r.headers.vary)).toMatch(/accept-encoding/i)
      lengthRight(r)
      expect(decoded(r)).toBe(plain.body.toString('utf8'))
    }
    // the same bytes: compressed once, not per request
    expect(br2.body.equals(br1.body)).toBe(true)
    expect(br1.body.length).toBeLessThan(plain.body.length / 8)
  })
})
