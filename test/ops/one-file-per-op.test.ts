import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { opCases } from '../../bench/stall-cases.ts'
import { costTable, inlineUpTo } from '../../src/exec/costs.ts'
import { CATALOG, type Catalog, catalogWith } from '../../src/ops/catalog.ts'
import { startTestApp, type TestApp } from '../helpers/harness.ts'

// Issue 37: an operation is declared once, in one file (src/ops/define.ts). A fixture op declared in a file
// of this test's (test/fixtures/ops/slug.op.ts) appears, without a line changed anywhere else, in the
// routes, the OpenAPI document, the cost table, the stall corpus and the job kinds; its pool threads load
// it too.
const FIXTURE = new URL('../fixtures/ops/slug.op.ts', import.meta.url).href

describe('an op declared in one file', () => {
  let catalog: Catalog
  let t: TestApp
  beforeAll(async () => {
    catalog = await catalogWith([FIXTURE])
    t = await startTestApp({ overrides: { catalog } })
  }, 60_000)
  afterAll(() => t?.close())

  it('is a route: inline for a small body, on the pool (whose threads loaded it) for a large one', async () => {
    const small = await t.post('/v1/text/slug', { input: 'Hello, World!' })
    expect(small.statusCode).toBe(200)
    expect(small.json()).toEqual({ ok: true, data: { slug: 'hello-world' } })
    expect(small.headers['server-timing']).toBeUndefined()
    const op = catalog.named('text.slug')!
    const large = await t.post('/v1/text/slug', { input: 'A b '.repeat(inlineUpTo(op) / 4) })
    expect(large.statusCode).toBe(200)
    expect(String(large.headers['server-timing'])).toMatch(/dispatch;desc="paid"/)
    expect(large.json<{ data: { slug: string } }>().data.slug).toMatch(/^a-b-a-b/)
    // refused by its own schema, with the common envelope
    const bad = await t.post('/v1/text/slug', { input: 1 })
    expect(bad.statusCode).toBe(400)
    expect(bad.json<{ error: { code: string } }>().error.code).toBe('ERR_VALIDATION')
  })

  it('is in the OpenAPI document, with its schemas and its example', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{
      paths: Record<string, { post?: { operationId: string; requestBody: unknown; responses: unknown } }>
    }>()
    const post = doc.paths['/v1/text/slug']?.post
    expect(post?.operationId).toBe('textSlug')
    expect(JSON.stringify(post?.responses)).toContain('hello-world')
  })

  it('is in the cost table, with the inline bound derived from its cost model', () => {
    const row = costTable(catalog).find((r) => r.op === 'text.slug')
    expect(row).toEqual({
      op: 'text.slug',
      worst: 'text of punctuation (every character replaced)',
      usPerKiB: 20,
      inlineBytes: 32 * 1024,
      heavy: false,
    })
    expect(costTable(CATALOG).some((r) => r.op === 'text.slug')).toBe(false)
  })

  it('is in the stall corpus: its worst case at the plan limit and under its inline bound', () => {
    const cases = opCases('free', catalog).filter((c) => c.path === '/v1/text/slug')
    expect(cases.map((c) => c.label)).toEqual(['text.slug 32 KiB', 'text.slug 252 KiB'])
  })

  it('is a job kind: submitted, run on a pool thread, its result kept', async () => {
    const submitted = await t.post('/v1/jobs', { operation: 'text.slug', params: { input: 'Job Done' } })
    expect(submitted.statusCode).toBe(202)
    const id = submitted.json<{ data: { id: string } }>().data.id
    let job: { status: string; result?: unknown } = { status: 'queued' }
    for (let i = 0; i < 100 && job.status !== 'completed' && job.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 50))
      const res = await t.app.inject({
        method: 'GET',
        url: `/v1/jobs/${id}`,
        headers: { authorization: `Bearer ${t.key}` },
      })
      job = res.json<{ data: typeof job }>().data
    }
    expect(job).toMatchObject({ status: 'completed', result: { slug: 'job-done' } })
    // and the built-in gateway does not know it
    const unknown = await t.post('/v1/jobs', { operation: 'text.reverse', params: {} })
    expect(unknown.statusCode).toBe(400)
  })
})

// An op's name is written once, in its descriptor: the sample names, each in at most two files of
// src/, workers/ and bench/ (its own file, and at most one bench that names it).
describe('an op name is written once', () => {
  const ROOT = new URL('../../', import.meta.url).pathname
  it.each([
    'json.patch',
    'json.diff',
    'base64.encode',
    'url.parse',
    'text.normalize',
    'cron.parse',
    'time.timestamp',
    'id.nanoid',
    'hmac.verify',
  ])('%s', (name) => {
    const pattern = `['"\`]${name.replaceAll('.', '\\.')}['"\`]`
    let files: string[] = []
    try {
      files = execFileSync('grep', ['-rlE', pattern, 'src', 'workers', 'bench'], {
        cwd: ROOT,
        encoding: 'utf8',
      })
        .trim()
        .split('\n')
    } catch {}
    expect(files.length, files.join(', ')).toBeLessThanOrEqual(2)
    expect(files.some((f) => f.endsWith('.op.ts'))).toBe(true)
  })
})
