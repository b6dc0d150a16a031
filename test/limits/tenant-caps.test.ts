import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN } from '../helpers/harness.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'
import { h1Request, type RawResponse } from '../helpers/tls-client.ts'
import { type JobsApp, jobsAppStarter, type StartJobsApp } from '../jobs/jobs-harness.ts'

type ErrorBody = { error: { code: string; details?: Record<string, unknown> } }

// Each cap over real sockets (the admin listener over HTTP, /v1 over TLS), on the store and job backend
// given: a burst of concurrent creates past the cap gets exactly the places left, the rest 409.
function tenantCapsSuite(start: StartJobsApp, mode: 'embedded' | 'redis') {
  let h: JobsApp | undefined
  let adminUrl = ''
  afterEach(async () => {
    await h?.close()
    h = undefined
  })

  async function open(options: { worker?: boolean } = {}) {
    h = await start({ listen: true, ...options })
    await h.t.admin.listen({ port: 0, host: '127.0.0.1' })
    adminUrl = `http://127.0.0.1:${(h.t.admin.server.address() as { port: number }).port}`
    return h
  }

  async function admin(method: string, path: string, body?: unknown) {
    const r = await fetch(`${adminUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: r.status, body: (await r.json()) as { data: { id: string } } & ErrorBody }
  }

  function submit(app: JobsApp, body: unknown): Promise<RawResponse> {
    return h1Request(app.t.url, {
      method: 'POST',
      path: '/v1/jobs',
      headers: { authorization: `Bearer ${app.t.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ca: app.t.tls!.cert,
    })
  }

  async function burst(n: number, make: (i: number) => Promise<{ status: number; body: ErrorBody }>) {
    const results = await Promise.all(Array.from({ length: n }, (_, i) => make(i)))
    const refused = results.filter((r) => r.status === 409)
    return { ok: results.filter((r) => r.status === 200).length, refused, all: results }
  }

  it('keys: at most max_keys live keys; revoked ones free a place', async () => {
    const app = await open()
    // the harness made one key already
    await app.override({ max_keys: 4 })
    const r = await burst(8, () => admin('POST', '/admin/keys', { workspace_id: app.t.workspaceId }))
    expect(r.ok).toBe(3)
    expect(r.refused).toHaveLength(5)
    for (const x of r.refused) {
      expect(x.body.error).toMatchObject({ code: 'ERR_CONFLICT', details: { limit: 'max_keys', max: 4 } })
    }
    const keys = (await admin('GET', `/admin/keys?workspace_id=${app.t.workspaceId}`)).body
      .data as unknown as {
      data: { id: string }[]
    }
    expect(keys.data).toHaveLength(4)
    // rotation makes a key too, so it is refused while full
    expect((await admin('POST', `/admin/keys/${keys.data[1]!.id}/rotate`, {})).status).toBe(409)
    expect((await admin('POST', `/admin/keys/${keys.data[1]!.id}/revoke`)).status).toBe(200)
    expect((await admin('POST', '/admin/keys', { workspace_id: app.t.workspaceId })).status).toBe(200)
    expect((await admin('POST', '/admin/keys', { workspace_id: app.t.workspaceId })).status).toBe(409)
  })

  it('projects and environments: at most max_projects / max_environments per workspace', async () => {
    const app = await open()
    // the harness made project "default" with environment "production"
    await app.override({ max_projects: 3, max_environments: 4 })
    const ws = app.t.workspaceId
    const projects = await burst(6, (i) =>
      admin('POST', '/admin/keys', { workspace_id: ws, project: `p${i}` }),
    )
    expect(projects.ok).toBe(2)
    for (const x of projects.refused) {
      expect(x.body.error).toMatchObject({ code: 'ERR_CONFLICT', details: { limit: 'max_projects', max: 3 } })
    }
    // environments count across projects: 3 so far (one per project), one place left
    const envs = await burst(5, (i) =>
      admin('POST', '/admin/keys', { workspace_id: ws, project: 'default', environment: `e${i}` }),
    )
    expect(envs.ok).toBe(1)
    for (const x of envs.refused) {
      expect(x.body.error).toMatchObject({
        code: 'ERR_CONFLICT',
        details: { limit: 'max_environments', max: 4 },
      })
    }
    // existing names are not creates: still fine when full
    expect(
      (await admin('POST', '/admin/keys', { workspace_id: ws, project: 'p0', environment: 'production' }))
        .status,
    ).toBe(200)
    expect((await app.t.runtime.store.listProjects(ws)).length).toBe(3)
  })

  it('jobs in flight: at most max_jobs_in_flight queued or running; a finished job frees its place', async () => {
    // on Redis no worker runs yet, so jobs stay queued; embedded, one slow job runs (one thread) and the
    // next waits behind it, the job budget (10x 100 ms) bounding how long
    const app = await open({ worker: false })
    await app.override({ max_jobs_in_flight: 2, compute_budget_ms: 100 })
    // small to send, slow to run: each copy doubles the document
    const patch = Array.from({ length: 16 }, (_, i) => ({ op: 'copy', from: '', path: `/a${i}` }))
    const slow = { operation: 'json.patch', params: { document: { x: [1, 2, 3, 4, 5, 6, 7, 8] }, patch } }
    const r = await Promise.all(Array.from({ length: 6 }, () => submit(app, slow)))
    expect(r.filter((x) => x.status === 202)).toHaveLength(2)
    const refused = r.filter((x) => x.status === 409)
    expect(refused).toHaveLength(4)
    for (const x of refused) {
      expect(x.json<ErrorBody>().error).toMatchObject({
        code: 'ERR_CONFLICT',
        details: { limit: 'max_jobs_in_flight', max: 2 },
      })
    }
    if (mode === 'redis') await app.startWorker()
    for (const x of r.filter((y) => y.status === 202)) {
      await app.finished(x.json<{ data: { id: string } }>().data.id)
    }
    const next = await submit(app, { operation: 'hash', params: { algorithm: 'md5', input: 'a' } })
    expect(next.status).toBe(202)
  }, 30_000)

  it('job results: one over max_job_result_bytes fails the job with ERR_RESULT_TOO_LARGE and is not stored', async () => {
    const app = await open()
    await app.override({ max_job_result_bytes: 2_000 })
    const input = JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ id: i })) })
    const big = await submit(app, { operation: 'json.format', params: { input, indent: 2 } })
    expect(big.status).toBe(202)
    const failed = await app.finished(big.json<{ data: { id: string } }>().data.id)
    expect(failed.status).toBe('failed')
    expect(failed.result).toBeUndefined()
    expect(failed.error).toMatchObject({
      type: 'invalid_request',
      code: 'ERR_RESULT_TOO_LARGE',
      details: { limit: 'max_job_result_bytes', max: 2_000, bytes: expect.any(Number) },
    })
    expect(failed.error!.details!.bytes as number).toBeGreaterThan(2_000)
    const small = await submit(app, { operation: 'json.format', params: { input: '{"a":1}' } })
    expect((await app.finished(small.json<{ data: { id: string } }>().data.id)).status).toBe('completed')
  })
}

describe('tenant caps on the embedded store', () => {
  tenantCapsSuite(jobsAppStarter('embedded'), 'embedded')
})

describeRedis('tenant caps on Redis', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedis()
  })
  afterAll(() => server?.stop())
  tenantCapsSuite(
    jobsAppStarter('redis', () => server.url),
    'redis',
  )
})
