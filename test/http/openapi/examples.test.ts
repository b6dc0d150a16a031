import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type DocExample,
  EXAMPLES_DIR,
  loadExamples,
  parseExamples,
  routeOf,
} from '../../../src/http/openapi/examples.ts'
import {
  differences,
  type ExampleWorld,
  expectedStatus,
  prepareWorld,
  runExample,
} from '../../helpers/examples-runner.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

interface Operation {
  operationId: string
  description?: string
  requestBody?: { content: Record<string, { examples?: object }> }
  parameters?: { example?: unknown }[]
  responses: Record<
    string,
    { content?: Record<string, { examples?: object }>; headers?: Record<string, unknown> }
  >
}
type Paths = Record<string, Record<string, Operation>>

// docs/examples/*.md are the OpenAPI documents' examples: each is run against a gateway (public listener
// over TLS, admin listener over HTTP) and must get the answer it shows, and every operation of both
// documents has at least one.
describe('docs/examples against a real gateway', () => {
  let t: TestApp
  let world: ExampleWorld
  let examples: DocExample[]
  let publicPaths: Paths
  let adminPaths: Paths
  beforeAll(async () => {
    t = await startTestApp({ listen: true })
    world = await prepareWorld(t)
    examples = await loadExamples(EXAMPLES_DIR)
    publicPaths = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{ paths: Paths }>()
      .paths
    adminPaths = (
      await t.admin.inject({
        method: 'GET',
        url: '/admin/openapi.json',
        headers: { authorization: `Bearer ${t.adminToken}`, host: '127.0.0.1' },
      })
    ).json<{ paths: Paths }>().paths
  }, 60_000)
  afterAll(() => t.close())

  it('every example answers what it shows (ids, timestamps and other "…" values aside)', async () => {
    expect(examples.length).toBeGreaterThan(60)
    let file = ''
    const failures: string[] = []
    for (const example of examples) {
      // each file rotates and revokes a key of its own
      if (example.file !== file) {
        file = example.file
        await world.freshKey()
      }
      const answer = await runExample(world, example)
      const where = `${example.file}: ${example.method} ${example.path}`
      const status = expectedStatus(example.response)
      if (status === 'success' ? answer.status >= 300 : answer.status !== status) {
        failures.push(`${where}: status ${answer.status}`)
      }
      for (const d of differences(example.response, answer.body)) failures.push(`${where}: ${d}`)
    }
    expect(failures).toEqual([])
  }, 120_000)

  it('every operation of both documents has a description and a request and a response example', () => {
    const missing: string[] = []
    for (const paths of [publicPaths, adminPaths]) {
      for (const [path, methods] of Object.entries(paths)) {
        for (const [method, op] of Object.entries(methods)) {
          const id = `${method.toUpperCase()} ${path} (${op.operationId})`
          if (!op.description) missing.push(`${id}: description`)
          const responded = Object.values(op.responses).some((r) =>
            Object.values(r.content ?? {}).some((c) => c.examples !== undefined),
          )
          if (!responded) missing.push(`${id}: response example`)
          const requested =
            Object.values(op.requestBody?.content ?? {}).some((c) => c.examples !== undefined) ||
            (op.parameters ?? []).some((p) => p.example !== undefined) ||
            (!op.requestBody && !(op.parameters ?? []).length)
          if (!requested) missing.push(`${id}: request example`)
        }
      }
    }
    expect(missing).toEqual([])
  })

  it('every example calls a documented operation', () => {
    const routes = [publicPaths, adminPaths].flatMap((paths) =>
      Object.entries(paths).flatMap(([path, methods]) =>
        Object.keys(methods).map((m) => ({
          method: m.toUpperCase(),
          url: path.replace(/\{(\w+)\}/g, ':$1'),
        })),
      ),
    )
    const unmatched = examples
      .filter((e) => !routeOf(routes, e))
      .map((e) => `${e.file}: ${e.method} ${e.path}`)
    expect(unmatched).toEqual([])
  })

  it('every response documents Request-Id, keyed ones RateLimit, 429 and 503 Retry-After, 202 Location', () => {
    const hash = publicPaths['/v1/hash/{algorithm}']!.post!
    expect(Object.keys(hash.responses['200']!.headers!)).toEqual(
      expect.arrayContaining(['Request-Id', 'RateLimit', 'RateLimit-Policy', 'Server-Timing']),
    )
    expect(Object.keys(hash.responses['429']!.headers!)).toEqual(
      expect.arrayContaining(['Retry-After', 'RateLimit']),
    )
    expect(Object.keys(hash.responses['503']!.headers!)).toContain('Retry-After')
    expect(Object.keys(hash.responses['401']!.headers!)).not.toContain('RateLimit')
    expect(Object.keys(publicPaths['/v1/jobs']!.post!.responses['202']!.headers!)).toContain('Location')
    for (const methods of [...Object.values(publicPaths), ...Object.values(adminPaths)]) {
      for (const op of Object.values(methods)) {
        for (const r of Object.values(op.responses)) expect(r.headers).toHaveProperty('Request-Id')
      }
    }
  })

  it('the parser reads k curl commands answered by k JSON lines, and bash quoting', () => {
    const md = [
      'Two at once:',
      '',
      '```sh',
      `curl https://localhost:8443/v1/a -H "Authorization: Bearer $ANVIL_KEY" -d '{"x":"it'\\''s"}'`,
      "curl -X DELETE https://localhost:8443/v1/b --data-binary $'{\\n}'",
      '```',
      '',
      '```json',
      '{"ok":true}',
      '{"error":{"code":"ERR_NOT_FOUND"}}',
      '```',
    ].join('\n')
    const [a, b] = parseExamples('x.md', md)
    expect(a).toMatchObject({ summary: 'Two at once', method: 'POST', path: '/v1/a', body: `{"x":"it's"}` })
    expect(a!.headers.authorization).toBe('Bearer $ANVIL_KEY')
    expect(b).toMatchObject({
      method: 'DELETE',
      path: '/v1/b',
      body: '{\n}',
      response: { error: { code: 'ERR_NOT_FOUND' } },
    })
    expect(differences({ id: 'job_…', at: '…' }, { id: 'job_1', at: 3 })).toEqual([])
    expect(differences({ id: 'job_…' }, { id: 'key_1' })).toHaveLength(1)
    expect(differences({ a: 1 }, { a: 1, b: 2 })).toEqual(['$.b: not in the example'])
  })
})
