import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

// Every route that can answer JSON or raw bytes negotiates Accept (RFC 9110 §12.5.1, src/lib/accept.ts): found
// from the OpenAPI document (a 200 with an application/octet-stream answer), each with a JSON body it takes.
const BODIES: Record<string, unknown> = {
  '/v1/hash/{algorithm}': { input: 'abc' },
  '/v1/base64/encode': { input: 'abc' },
  '/v1/base64/decode': { input: 'YWJj' },
  '/v1/json/format': { input: '{"a":1}' },
  '/v1/data/convert': { input: 'a: 1', from: 'yaml', to: 'json' },
  '/v1/compress/{algorithm}': { input: 'abc' },
  '/v1/decompress/{algorithm}': { input: 'H4sIAAAAAAAAA0tMSgYAwkEkNQMAAAA=' },
}
// the algorithm each path parameter is sent as
const ALGORITHM: Record<string, string> = { '/v1/hash/{algorithm}': 'sha256' }

interface Operation {
  responses: Record<string, { description?: string; content?: Record<string, unknown> }>
}

describe('Accept negotiation on the routes that answer JSON or bytes', () => {
  let t: TestApp
  let binary: string[]
  beforeAll(async () => {
    t = await startTestApp()
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{
      paths: Record<string, Record<string, Operation>>
    }>()
    binary = Object.entries(doc.paths)
      .filter(([, ops]) =>
        Object.values(ops).some((op) => op.responses['200']?.content?.['application/octet-stream']),
      )
      .map(([path]) => path)
    // and each documents the 406
    for (const [path, ops] of Object.entries(doc.paths)) {
      const documents406 = Object.values(ops).some((op) =>
        op.responses['406']?.description?.includes('ERR_NOT_ACCEPTABLE'),
      )
      expect(documents406, path).toBe(binary.includes(path))
    }
  })
  afterAll(() => t.close())

  const send = (path: string, accept: string | undefined) =>
    t.post(
      path.replace('{algorithm}', ALGORITHM[path] ?? 'gzip'),
      BODIES[path],
      accept === undefined ? {} : { accept },
    )

  it('finds the binary routes, each with a body here', () => {
    expect(binary.sort()).toEqual(Object.keys(BODIES).sort())
  })

  it.each([
    ['application/json, application/octet-stream', 'json'],
    ['application/octet-stream;q=0.5, application/json', 'json'],
    ['*/*', 'json'],
    ['application/*', 'json'],
    ['application/octet-stream', 'octets'],
    ['application/octet-stream, application/json', 'octets'],
    ['application/json;q=0, */*', 'octets'],
  ])('Accept %j answers %s', async (accept, want) => {
    for (const path of binary) {
      const res = await send(path, accept)
      expect(res.statusCode, path).toBe(200)
      const type = String(res.headers['content-type'])
      if (want === 'json') {
        expect(type, path).toBe('application/json; charset=utf-8')
        expect(res.json().ok, path).toBe(true)
      } else expect(type, path).toBe('application/octet-stream')
    }
  })

  it('answers 406 ERR_NOT_ACCEPTABLE when neither is acceptable, as JSON', async () => {
    for (const path of binary) {
      for (const accept of ['text/html', 'application/json;q=0, application/octet-stream;q=0', '']) {
        const res = await send(path, accept)
        expect(res.statusCode, `${path} ${accept}`).toBe(406)
        expect(res.json().error).toMatchObject({
          code: 'ERR_NOT_ACCEPTABLE',
          type: 'invalid_request',
          details: { available: ['application/json', 'application/octet-stream'] },
        })
      }
    }
  })

  it('refuses a raw streamed body with 406 before hashing it', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/hash/sha256',
      headers: {
        authorization: `Bearer ${t.key}`,
        'content-type': 'application/octet-stream',
        accept: 'text/html',
      },
      payload: Buffer.alloc(64 * 1024, 1),
    })
    expect(res.statusCode).toBe(406)
    expect(res.json().error.code).toBe('ERR_NOT_ACCEPTABLE')
  })

  it('routes that answer only JSON ignore Accept', async () => {
    const res = await t.post('/v1/hmac/sha256', { input: 'a', key: 'k' }, { accept: 'text/html' })
    expect(res.statusCode).toBe(200)
    expect(res.json().ok).toBe(true)
  })
})
