import https from 'node:https'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inlineUpTo } from '../../src/exec/costs.ts'
import { startTestApp, type TestApp } from '../helpers/harness.ts'
import { opNamed } from '../helpers/ops.ts'
import { h1Request, type RawResponse } from '../helpers/tls-client.ts'

// A json.patch body of exactly `size` bytes (a padding string sized to fit).
function patchBody(size: number): string {
  const empty = JSON.stringify({ document: { pad: '' }, patch: [] })
  const body = JSON.stringify({ document: { pad: 'x'.repeat(size - empty.length) }, patch: [] })
  expect(Buffer.byteLength(body)).toBe(size)
  return body
}

function where(res: RawResponse): string | undefined {
  return /dispatch;desc="([^"]+)"/.exec(String(res.headers['server-timing']))?.[1]
}

// The same body sent with Transfer-Encoding: chunked (no Content-Length).
function chunked(t: TestApp, path: string, body: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const r = https.request(
      new URL(path, t.url),
      {
        method: 'POST',
        ca: t.tls!.cert,
        agent: false,
        headers: {
          authorization: `Bearer ${t.key}`,
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const buf = Buffer.concat(chunks)
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: buf,
            json: <T>() => JSON.parse(buf.toString('utf8')) as T,
          })
        })
      },
    )
    r.on('error', reject)
    // two writes: the body really arrives in chunks
    r.write(body.slice(0, 10))
    r.end(body.slice(10))
  })
}

// Issue 14: one decision per request, from the declared size, before the body is read.
describe('the execution decision over a real socket', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ listen: true })
  })
  afterAll(() => t?.close())

  const post = (body: string) =>
    h1Request(t.url, {
      method: 'POST',
      path: '/v1/json/patch',
      ca: t.tls!.cert,
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body,
    })

  it('a body just under the op’s inline bound runs inline, one at the bound runs on the pool', async () => {
    const bound = inlineUpTo(opNamed('json.patch'))
    const under = await post(patchBody(bound - 1))
    expect(under.status).toBe(200)
    expect(under.headers['server-timing']).toBeUndefined()
    const over = await post(patchBody(bound))
    expect(over.status).toBe(200)
    expect(where(over)).toBe('paid')
    expect(over.json<{ data: { result: { pad: string } } }>().data.result.pad).toHaveLength(
      bound - JSON.stringify({ document: { pad: '' }, patch: [] }).length,
    )
  }, 60_000)

  it('a chunked body (no declared length) is never inline for an op with a pool path', async () => {
    const res = await chunked(t, '/v1/json/patch', JSON.stringify({ document: { a: 1 }, patch: [] }))
    expect(res.status).toBe(200)
    expect(res.json()).toEqual({ ok: true, data: { result: { a: 1 } } })
    expect(where(res)).toBe('paid')
    // an op whose schema bounds its work too: its body's size is unknown until read, and parsing it is
    // its worst case
    const id = await chunked(
      t,
      '/v1/id/uuid/inspect',
      JSON.stringify({ uuid: '123e4567-e89b-42d3-a456-426614174000' }),
    )
    expect(id.status).toBe(200)
    expect(where(id)).toBe('paid')
  }, 60_000)

  it('a small RSA signing request is inline by size, and on the pool by its input', async () => {
    const { privateKey } = await import('node:crypto').then((c) =>
      c.generateKeyPairSync('rsa', { modulusLength: 2048 }),
    )
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    const res = await h1Request(t.url, {
      method: 'POST',
      path: '/v1/jwt/sign',
      ca: t.tls!.cert,
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ payload: { sub: 'a' }, algorithm: 'RS256', private_key: pem }),
    })
    expect(res.status, res.body.toString()).toBe(200)
    expect(where(res)).toBe('paid')
  }, 60_000)
})
