import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ERRORS } from '../../src/errors.ts'
import { startTestApp, type TestApp } from '../helpers/harness.ts'

// The contract, docs/api.md, kept in step with the service both ways: each endpoint it names is served
// (never 404/405 with a key) and documented in the generated OpenAPI document; each /v1 operation of that
// document and each code of the error table is named in it.
const API_MD = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8')
// GET /v1/jobs/{id} answers 404 for an unknown id by design; test/jobs covers it with real jobs
const PENDING = new Set(['/v1/jobs/{id}'])
const ENDPOINTS_ALL = [
  ...new Set(
    [...API_MD.matchAll(/`(GET |POST |DELETE )?(\/v1\/[a-z0-9/{}_.-]+)`/g)].map(
      (m) => `${(m[1] ?? 'POST ').trim()} ${m[2]}`,
    ),
  ),
].map((e) => e.split(' ') as [string, string])
const ENDPOINTS = ENDPOINTS_ALL.filter(([, path]) => !PENDING.has(path))

describe('docs/api.md endpoints', () => {
  let t: TestApp
  let doc: { paths: Record<string, Record<string, unknown>> }
  beforeAll(async () => {
    t = await startTestApp()
    doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
  })
  afterAll(() => t.close())

  it('the contract lists the endpoints we expect to check', () => {
    expect(ENDPOINTS.length).toBeGreaterThanOrEqual(28)
  })

  for (const [method, path] of ENDPOINTS) {
    it(`${method} ${path} is served and documented`, async () => {
      if (path !== '/v1/openapi.json') expect(doc.paths[path]?.[method.toLowerCase()]).toBeDefined()
      const url = path.replace('{algorithm}', 'sha256').replace('{id}', 'x')
      const res = await t.app.inject({
        method: method as 'GET' | 'POST' | 'DELETE',
        url,
        headers: {
          authorization: `Bearer ${t.key}`,
          ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
        },
        ...(method === 'POST' ? { payload: '{}' } : {}),
      })
      expect([404, 405]).not.toContain(res.statusCode)
      expect(res.statusCode).toBeLessThan(500)
    })
  }

  it('names every /v1 operation of the served OpenAPI document', () => {
    const named = new Set(ENDPOINTS_ALL.map(([method, path]) => `${method} ${path}`))
    const served = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/v1/'))
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
    expect(served.length).toBeGreaterThanOrEqual(28)
    expect(served.filter((op) => !named.has(op))).toEqual([])
  })

  it('names every code of the error table', () => {
    expect(Object.keys(ERRORS).filter((code) => !API_MD.includes(code))).toEqual([])
  })
})
