import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

interface OpenApiDoc {
  openapi: string
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string
        security: unknown[]
        responses: Record<string, unknown>
        requestBody?: { content: Record<string, unknown> }
      }
    >
  >
  components: { schemas: Record<string, unknown> }
}

describe('meta endpoints', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp()
  })
  afterAll(() => t.close())

  it('serves OpenAPI 3.1 generated from every documented route, without a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['request-id']).toBeTruthy()
    const doc = res.json<OpenApiDoc>()
    expect(doc.openapi).toBe('3.1.0')
    const hash = doc.paths['/v1/hash/{algorithm}']!.post!
    expect(hash.operationId).toBe('hash')
    expect(hash.security).toEqual([{ apiKey: [] }])
    expect(Object.keys(hash.requestBody!.content)).toEqual(['application/json', 'application/octet-stream'])
    expect(Object.keys(hash.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '413', '415', '429', '500', '503']),
    )
    expect(doc.paths['/healthz']!.get!.security).toEqual([])
    expect(doc.paths['/v1/hash/algorithms']!.get).toBeDefined()
    // operation ids are unique
    const ids = Object.values(doc.paths).flatMap((p) => Object.values(p).map((o) => o.operationId))
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('the request schema carries defaults and enums from zod', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<OpenApiDoc>()
    const ref = (
      doc.paths['/v1/hash/{algorithm}']!.post!.requestBody!.content['application/json'] as {
        schema: { $ref: string }
      }
    ).schema.$ref
    expect(ref).toBe('#/components/schemas/HashRequest')
    const body = doc.components.schemas.HashRequest as {
      properties: Record<string, { description?: string; enum?: unknown[] }>
      required: string[]
    }
    expect(body.required).toEqual(['input'])
    // a request default is stated in words: generators read `default` as "always present"
    expect(body.properties.output_encoding).toMatchObject({ enum: ['hex', 'base64', 'base64url'] })
    expect(body.properties.output_encoding!.description).toContain('Default: "hex".')
    expect(body.properties.output_encoding).not.toHaveProperty('default')
  })

  it('/docs renders the document with a packaged renderer (no CDN)', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/' })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toContain('text/html')
    const scripts = [...page.body.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1])
    expect(scripts.length).toBeGreaterThan(0)
    for (const src of scripts) expect(src).not.toMatch(/^(https?:)?\/\//)
    expect(page.body).toContain('/v1/openapi.json')
    const js = await t.app.inject({ method: 'GET', url: `/docs/${scripts[0]}` })
    expect(js.statusCode).toBe(200)
    expect(js.body.length).toBeGreaterThan(100_000)
  })

  it('/healthz and /readyz need no key', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({
      ok: true,
      data: { status: 'ok' },
    })
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({
      ok: true,
      data: { status: 'ready' },
    })
    expect((await t.app.inject({ method: 'HEAD', url: '/healthz' })).statusCode).toBe(200)
  })
})
