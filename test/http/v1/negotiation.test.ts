import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CATALOG } from '../../../src/ops/catalog.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

// Every route that can answer JSON or raw bytes negotiates Accept (RFC 9110 §12.5.1, src/lib/accept.ts): found
// from the OpenAPI document (a 200 with an application/octet-stream answer), each sent as its op's first
// worked example with a JSON body that succeeds (the descriptor's, so a new op needs nothing here).
function exampleRequest(template: string): { path: string; body: unknown } | undefined {
  const op = CATALOG.ops.find((o) => o.http.path.replace(/:(\w+)/g, '{$1}') === template)
  const example = op?.examples.find((e) => e.body !== undefined && e.error === undefined && !e.query)
  if (!op || !example) return undefined
  return { path: example.path ?? op.http.path, body: example.body }
}

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

  const send = (template: string, accept: string | undefined) => {
    const { path, body } = exampleRequest(template)!
    return t.post(path, body, accept === undefined ? {} : { accept })
  }

  it('finds the binary routes, each with a worked example to send', () => {
    expect(binary.length).toBeGreaterThanOrEqual(7)
    for (const path of binary) expect(exampleRequest(path), path).toBeDefined()
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
