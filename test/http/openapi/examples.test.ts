import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type DocExample,
  EXAMPLES_DIR,
  loadExamples,
  opExamples,
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
  summary?: string
  description?: string
  security?: Record<string, unknown>[]
  requestBody?: { content: Record<string, { examples?: object }> }
  parameters?: { example?: unknown; $ref?: string }[]
  responses: Record<
    string,
    {
      description?: string
      content?: Record<string, { examples?: Record<string, { value?: unknown }> }>
      headers?: Record<string, unknown>
    }
  >
}
type Paths = Record<string, Record<string, Operation>>

// a browser page's origin the test gateway allows (CORS_ALLOWED_ORIGINS), sent on every /v1 example
const BROWSER_ORIGIN = 'https://app.example.com'
// headers of the message itself, not of the API: never documented
const TRANSPORT = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
])
// every POST that creates (docs/api.md, "Safe retries"), and only those, honours Idempotency-Key
const IDEMPOTENT = new Set([
  'POST /v1/jobs',
  'POST /admin/workspaces',
  'POST /admin/keys',
  'POST /admin/keys/{id}/rotate',
  'POST /admin/workspaces/{workspace_id}/projects',
  'POST /admin/workspaces/{workspace_id}/projects/{project_id}/environments',
  'POST /console/api/workspaces',
  'POST /console/api/workspaces/{workspace_id}/projects',
  'POST /console/api/workspaces/{workspace_id}/projects/{project_id}/environments',
  'POST /console/api/workspaces/{workspace_id}/keys',
  'POST /console/api/workspaces/{workspace_id}/keys/{key_id}/rotate',
])
// an unfinished job's answer carries the polling hint
const JOB_STATUS = new Set(['GET /v1/jobs/{id}', 'DELETE /v1/jobs/{id}'])
// what the console scope adds to each of its answers (src/http/console/plugin.ts)
const CONSOLE_HEADERS = [
  'Set-Cookie',
  'Cache-Control',
  'Content-Security-Policy',
  'Strict-Transport-Security',
  'X-Content-Type-Options',
  'X-Frame-Options',
  'Referrer-Policy',
  'Cross-Origin-Opener-Policy',
]

function operations(paths: Paths) {
  return Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      id: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase(),
      path,
      url: path.replace(/\{(\w+)\}/g, ':$1'),
      op,
    })),
  )
}

// The ops' own examples (OpDescriptor.examples) and those of docs/examples/*.md are the OpenAPI documents'
// examples: each is run against a gateway (public listener over TLS, admin listener over HTTP) and must get
// the answer it shows, and every operation of both documents has at least one.
describe('docs/examples against a real gateway', () => {
  let t: TestApp
  let world: ExampleWorld
  let examples: DocExample[]
  let publicPaths: Paths
  let adminPaths: Paths
  beforeAll(async () => {
    t = await startTestApp({ listen: true, env: { CORS_ALLOWED_ORIGINS: BROWSER_ORIGIN } })
    world = await prepareWorld(t)
    // page by page, as a reader runs them: an op's examples are its family's page's (docs/examples/)
    examples = [...opExamples(t.runtime.catalog), ...(await loadExamples(EXAMPLES_DIR))].sort((a, b) =>
      a.file < b.file ? -1 : a.file > b.file ? 1 : 0,
    )
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

  // Each example is sent as a browser page of an allowed origin and a client that accepts br and gzip would
  // send it, so its answer carries every header it can; each header it carries must be documented for its
  // operation and status.
  it('every example answers what it shows (ids, timestamps and other "…" values aside), with documented headers', async () => {
    expect(examples.length).toBeGreaterThan(60)
    const documented = [...operations(publicPaths), ...operations(adminPaths)]
    let file = ''
    const failures: string[] = []
    const seen = new Set<string>()
    for (const example of examples) {
      // each file rotates and revokes a key of its own
      if (example.file !== file) {
        file = example.file
        await world.freshKey()
      }
      const extra: Record<string, string> = { 'accept-encoding': 'br, gzip' }
      if (example.path.startsWith('/v1/')) extra.origin = BROWSER_ORIGIN
      const answer = await runExample(world, example, extra)
      const where = `${example.file}: ${example.method} ${example.path}`
      const status = expectedStatus(example.response)
      if (status === 'success' ? answer.status >= 300 : answer.status !== status) {
        failures.push(`${where}: status ${answer.status}`)
      }
      for (const d of differences(example.response, answer.body)) failures.push(`${where}: ${d}`)
      const response = routeOf(documented, example)?.route.op.responses[String(answer.status)]
      if (!response) {
        failures.push(`${where}: status ${answer.status} is not documented`)
        continue
      }
      const names = new Set(Object.keys(response.headers ?? {}).map((h) => h.toLowerCase()))
      for (const header of Object.keys(answer.headers)) {
        seen.add(header)
        if (!TRANSPORT.has(header) && !names.has(header)) {
          failures.push(`${where}: ${answer.status} carries ${header}, not documented there`)
        }
      }
    }
    expect(failures).toEqual([])
    // the answers above did carry the headers that depend on the request or the listener's settings
    expect([...seen]).toEqual(
      expect.arrayContaining([
        'content-encoding',
        'vary',
        'access-control-allow-origin',
        'access-control-expose-headers',
        'idempotent-replayed',
        'set-cookie',
        'location',
        'ratelimit',
      ]),
    )
  }, 120_000)

  it('every operation of both documents has a description of its own, a request example and a success example', () => {
    const missing: string[] = []
    for (const paths of [publicPaths, adminPaths]) {
      for (const [path, methods] of Object.entries(paths)) {
        for (const [method, op] of Object.entries(methods)) {
          const id = `${method.toUpperCase()} ${path} (${op.operationId})`
          if (!op.description?.trim()) missing.push(`${id}: description`)
          else if (op.description.trim() === op.summary?.trim())
            missing.push(`${id}: description (only the summary again)`)
          // an error example does not show what the operation answers
          const succeeded = Object.entries(op.responses).some(
            ([status, r]) =>
              /^2\d\d$/.test(status) &&
              Object.values(r.content ?? {}).some((c) =>
                Object.values(c.examples ?? {}).some((e) => (e.value as { ok?: unknown })?.ok === true),
              ),
          )
          if (!succeeded) missing.push(`${id}: success (2xx) response example`)
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
    const routes = [...operations(publicPaths), ...operations(adminPaths)]
    const unmatched = examples
      .filter((e) => !routeOf(routes, e))
      .map((e) => `${e.file}: ${e.method} ${e.path}`)
    expect(unmatched).toEqual([])
  })

  // For every operation of both documents, each header where it applies and nowhere else.
  it("every response documents the headers it can carry: Request-Id, RateLimit, Retry-After, CORS, Traceresponse, compression, idempotency, the console's", () => {
    const problems: string[] = []
    for (const [listener, paths] of [
      ['public', publicPaths],
      ['admin', adminPaths],
    ] as const) {
      for (const { id, path, op } of operations(paths)) {
        const security = Object.keys(op.security?.[0] ?? {})[0] ?? 'none'
        const idempotent = IDEMPOTENT.has(id)
        for (const [status, response] of Object.entries(op.responses)) {
          const code = Number(status)
          const has = new Set(Object.keys(response.headers ?? {}))
          const want = (name: string, yes: boolean) => {
            if (has.has(name) !== yes)
              problems.push(`${id} ${status}: ${yes ? 'lacks' : 'should not have'} ${name}`)
          }
          want('Request-Id', true)
          want('RateLimit', security === 'apiKey' && code !== 401)
          want('RateLimit-Policy', security === 'apiKey' && code !== 401)
          if (code === 429 || code === 503) want('Retry-After', true)
          if (code === 401) want('WWW-Authenticate', security === 'apiKey' || security === 'admin')
          if (code === 202) want('Location', true)
          // the public listener traces (when on) and compresses every answer; CORS only on the API paths
          want('Traceresponse', listener === 'public')
          want('Content-Encoding', listener === 'public')
          want('Vary', listener === 'public')
          want('Access-Control-Allow-Origin', path.startsWith('/v1/'))
          want('Access-Control-Expose-Headers', path.startsWith('/v1/'))
          for (const name of CONSOLE_HEADERS) want(name, path.startsWith('/console/'))
          if (code < 300 || !idempotent) want('Idempotent-Replayed', idempotent)
          if (code < 300 && JOB_STATUS.has(id)) want('Retry-After', true)
        }
        const keyParam = (op.parameters ?? []).some(
          (p) => p.$ref === '#/components/parameters/IdempotencyKey',
        )
        if (keyParam !== idempotent)
          problems.push(`${id}: Idempotency-Key ${idempotent ? 'missing' : 'documented'}`)
        if (idempotent) {
          const inProgress = op.responses['409']
          if (!inProgress?.description?.includes('ERR_IDEMPOTENCY_IN_PROGRESS'))
            problems.push(`${id}: no 409 ERR_IDEMPOTENCY_IN_PROGRESS`)
          else if (!inProgress.headers?.['Retry-After']) problems.push(`${id}: 409 without Retry-After`)
          if (!op.responses['422']?.description?.includes('ERR_IDEMPOTENCY_MISMATCH'))
            problems.push(`${id}: no 422 ERR_IDEMPOTENCY_MISMATCH`)
        } else if (JSON.stringify(op.responses).includes('ERR_IDEMPOTENCY_')) {
          problems.push(`${id}: documents ERR_IDEMPOTENCY_* without honouring Idempotency-Key`)
        }
      }
    }
    expect(problems).toEqual([])
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
    // an array cut short: the items shown, then any more
    expect(differences([1, 2, '…'], [1, 2, 3, 4])).toEqual([])
    expect(differences([1, 2, '…'], [1, 3, 4])).toHaveLength(1)
    expect(differences([1, 2, '…'], [1])).toHaveLength(1)
  })
})
