import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TAG_GROUPS } from '../../../src/http/openapi/tags.ts'
import { FAMILIES } from '../../../src/limits/families.ts'
import { CATALOG } from '../../../src/ops/catalog.ts'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../../helpers/harness.ts'

interface Doc {
  tags: { name: string; description: string }[]
  'x-tagGroups': { name: string; tags: string[] }[]
  paths: Record<string, Record<string, { tags: string[]; parameters: Record<string, unknown>[] }>>
}

// Issue 43: /docs listed the console's cookie-session API among the public /v1 families, in no order.
describe("the reference's tags: ordered, grouped, every one shown", () => {
  let t: TestApp
  let pub: Doc
  let admin: Doc
  beforeAll(async () => {
    t = await startTestApp()
    pub = (await t.app.inject({ url: '/v1/openapi.json' })).json()
    admin = (
      await t.admin.inject({
        url: '/admin/openapi.json',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, host: '127.0.0.1' },
      })
    ).json()
  })
  afterAll(() => t.close())

  const used = (doc: Doc) =>
    new Set(Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags)))

  it('every tag an operation uses is in a group (a page with groups hides the others), in order', () => {
    for (const doc of [pub, admin]) {
      const tags = used(doc)
      const grouped = doc['x-tagGroups'].flatMap((g) => g.tags)
      expect([...tags].filter((tag) => !grouped.includes(tag))).toEqual([])
      expect(doc.tags.map((tag) => tag.name)).toEqual(grouped)
      expect(doc.tags.every((tag) => tag.description.length > 10)).toBe(true)
    }
  })

  it('the /v1 families first, each with the tag its family.ts declares, then the service, then the console apart', () => {
    const [api, service, console] = pub['x-tagGroups']
    expect(api).toEqual({
      name: 'API (/v1, API key)',
      tags: [...CATALOG.families.map((f) => f.tag), 'Jobs'],
    })
    expect(api!.tags.slice(0, 4)).toEqual(['Base64', 'Compression', 'Cron', 'Crypto'])
    expect(service).toEqual({ name: 'Service', tags: ['Meta'] })
    expect(console).toEqual({ name: 'Console API (session cookie)', tags: ['Console'] })
    // every /v1 operation is under the API's heading, every console one under the console's
    for (const [path, ops] of Object.entries(pub.paths)) {
      for (const op of Object.values(ops)) {
        const group = pub['x-tagGroups'].find((g) => g.tags.includes(op.tags[0]!))!.name
        if (path.startsWith('/console/')) expect(group, path).toBe('Console API (session cookie)')
        else if (path.startsWith('/v1/') && path !== '/v1/openapi.json')
          expect(group, path).toBe('API (/v1, API key)')
      }
    }
    // one tag per key family, and the jobs; each op under its family's tag
    expect(api!.tags.length).toBe(FAMILIES.length)
    for (const op of CATALOG.ops)
      expect(pub.paths[op.http.path.replace(/:(\w+)/g, '{$1}')]!.post!.tags, op.name).toEqual([
        CATALOG.family(op.family).tag,
      ])
    expect(admin['x-tagGroups']).toEqual([{ name: 'Operators (internal listener)', tags: ['Admin'] }])
    expect(TAG_GROUPS.flatMap((g) => g.tags.map((tag) => tag.name)).length).toBe(
      new Set(TAG_GROUPS.flatMap((g) => g.tags.map((tag) => tag.name))).size,
    )
  })

  it("a route's raw-body query options say so and are offered unticked, under each JSON example's name", () => {
    const hash = pub.paths['/v1/hash/{algorithm}']!.post!
    const query = hash.parameters.filter((p) => p.in === 'query')
    expect(query.map((p) => p.name)).toEqual(['output_encoding', 'length'])
    for (const p of query)
      expect(p.description).toMatch(/^With a raw application\/octet-stream body only \(a JSON body carries/)
    const encoding = query[0]!
    expect(encoding.example).toBeUndefined()
    const examples = Object.values(encoding.examples as Record<string, Record<string, unknown>>)
    expect(examples.length).toBeGreaterThan(1)
    for (const e of examples) expect(e).toMatchObject({ value: 'hex', 'x-disabled': true })
    // a route without raw bodies keeps its query parameters as they are
    const list = pub.paths['/v1/jobs']!.get!.parameters.find((p) => p.name === 'limit')!
    expect(String(list.description ?? '')).not.toMatch(/raw application\/octet-stream/)
    expect(list.examples).toBeUndefined()
  })
})
