import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ERRORS } from '../../../src/errors.ts'
import { FAMILIES } from '../../../src/limits/families.ts'
import { INSPECT_WARNING_CODES } from '../../../src/ops/jwt/types.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

type Schema = Record<string, unknown>

// every property of every component schema, by path (Job.oneOf[1].error.code, X.warnings[].code)
function properties(schemas: Record<string, Schema>): [string, Schema][] {
  const out: [string, Schema][] = []
  const walk = (s: unknown, path: string): void => {
    if (Array.isArray(s)) {
      for (const [i, x] of s.entries()) walk(x, `${path}[${i}]`)
      return
    }
    if (!s || typeof s !== 'object') return
    for (const [k, v] of Object.entries(s as Schema)) {
      if (k === 'properties') {
        for (const [name, p] of Object.entries(v as Record<string, Schema>)) {
          out.push([`${path}.${name}`, p])
          walk(p, `${path}.${name}`)
        }
      } else if (k === 'items') walk(v, `${path}[]`)
      else if (k !== 'examples' && k !== 'example') walk(v, `${path}.${k}`)
    }
  }
  for (const [name, schema] of Object.entries(schemas)) walk(schema, name)
  return out
}

// names that stand for a closed set wherever they appear
const CLOSED =
  /\.(code|type|status|mode|plan|role|pool|operation|algorithm|families|format|form|variant|\w+_encoding|unit|reason|payload_format)(\[\])?$/
const free = (s: Schema) =>
  s.type === 'string' && !s.enum && s.const === undefined && !s.$ref && !s.format && !s.pattern

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

  it('closed sets are enums in both documents: families, a job error, JWT warnings, algorithms', async () => {
    const admin = await t.admin.inject({
      method: 'GET',
      url: '/admin/openapi.json',
      headers: { authorization: `Bearer ${t.adminToken}`, host: '127.0.0.1' },
    })
    for (const doc of [
      (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<OpenApiDoc>(),
      admin.json<OpenApiDoc>(),
    ]) {
      const schemas = doc.components.schemas as Record<string, Schema>
      const props = properties(schemas)
      // a free string under a closed set's name: only the token's own alg, which is whatever the token says
      const loose = props.filter(
        ([path, s]) => CLOSED.test(path) && (free(s) || free((s.items ?? {}) as Schema)),
      )
      expect(loose.map(([path]) => path)).toEqual(
        doc.paths['/v1/jwt/inspect'] ? ['InspectJwtResult.algorithm'] : [],
      )
      expect(schemas.Family).toMatchObject({ enum: [...FAMILIES] })
      const families = props.filter(([path]) => path.endsWith('.families'))
      // a key's, and the create request's
      expect(families.length).toBeGreaterThanOrEqual(2)
      for (const [path, s] of families) {
        const array = (s.anyOf as Schema[] | undefined)?.find((x) => x.type === 'array') ?? s
        expect(array.items, path).toEqual({ $ref: '#/components/schemas/Family' })
      }
      expect(schemas.ErrorCode).toMatchObject({ enum: Object.keys(ERRORS) })
      // an error object anywhere (the envelope's, a failed job's) names its code and type by the table's enums
      const errors = props.filter(([path]) => /\.error$/.test(path))
      expect(errors.length).toBeGreaterThan(0)
      for (const [path, s] of errors) {
        const error = s as { properties: Record<string, Schema> }
        expect(error.properties.code, path).toEqual({ $ref: '#/components/schemas/ErrorCode' })
        expect(error.properties.type, path).toEqual({ $ref: '#/components/schemas/ErrorType' })
      }
      if (!doc.paths['/v1/jwt/inspect']) continue
      const prop = (path: string) => props.find(([p]) => p === path)?.[1] ?? {}
      expect(prop('InspectJwtResult.warnings[].code').enum).toEqual([...INSPECT_WARNING_CODES])
      expect(prop('HmacResult.algorithm')).toEqual({ $ref: '#/components/schemas/HmacAlgorithm' })
      expect(prop('VerifyHmacRequest.algorithm').enum).toContain('sha256')
      expect(prop('SignJwtRequest.algorithm').enum).toContain('HS256')
    }
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
