import { afterEach, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { HOST } from './console-client.ts'
import { type Tenant, tenant } from './fixtures.ts'

const T0 = Date.UTC(2026, 6, 15, 10)

describe('console API: workspaces, projects, environments, keys, usage', () => {
  let t: TestApp
  let now = T0
  let me: Tenant
  afterEach(() => t?.close())

  async function start(env: Record<string, string> = {}) {
    now = T0
    t = await startTestApp({ overrides: { clock: () => now }, env })
    me = await tenant(t.app, 'me@example.com')
    return me.client
  }
  const ws = () => `/console/api/workspaces/${me.workspaceId}`
  const callV1 = (key: string, url = '/v1/hash/sha256', ip?: string) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"input":"hello"}',
      ...(ip ? { remoteAddress: ip } : {}),
    })

  it('workspaces: the creator owns them; each shows its plan and effective limits', async () => {
    const c = await start()
    const created = await c.call('POST', '/console/api/workspaces', { name: '  Side project  ' })
    expect(created.statusCode).toBe(200)
    expect(created.json().data).toMatchObject({
      name: 'Side project',
      plan: 'free',
      role: 'owner',
      limits: { monthly_quota: 10_000, key_rate_per_second: 5, workspace_rate_per_second: 10, pool: 'free' },
    })
    const list = (await c.call('GET', '/console/api/workspaces')).json().data.data
    expect(list.map((w: { name: string }) => w.name).sort()).toEqual(['Acme', 'Side project'])
    const one = await c.call('GET', `/console/api/workspaces/${created.json().data.id}`)
    expect(one.json().data.id).toBe(created.json().data.id)
    // the admin's plan change shows through
    await t.runtime.store.updateWorkspace(me.workspaceId, { plan: 'pro', overrides: { monthly_quota: 123 } })
    expect((await c.call('GET', ws())).json().data).toMatchObject({
      plan: 'pro',
      limits: { monthly_quota: 123 },
    })
  })

  it('an account owns at most CONSOLE_MAX_WORKSPACES workspaces, the sign-up one included', async () => {
    const c = await start({ CONSOLE_MAX_WORKSPACES: '3' })
    for (const name of ['Two', 'Three']) {
      expect((await c.call('POST', '/console/api/workspaces', { name })).statusCode).toBe(200)
    }
    const refused = await c.call('POST', '/console/api/workspaces', { name: 'Four' })
    expect(refused.statusCode).toBe(409)
    expect(refused.json().error).toMatchObject({ code: 'ERR_CONFLICT', details: { limit: 3 } })
    expect((await c.call('GET', '/console/api/workspaces')).json().data.data).toHaveLength(3)
  })

  it('projects and environments: created explicitly, a taken name is 409', async () => {
    const c = await start()
    expect((await c.call('POST', `${ws()}/projects`, { name: 'default' })).json().error).toMatchObject({
      code: 'ERR_CONFLICT',
      details: { issues: [{ path: 'name' }] },
    })
    const envs = `${ws()}/projects/${me.projectId}/environments`
    const staging = await c.call('POST', envs, { name: 'staging', mode: 'test' })
    expect(staging.json().data).toMatchObject({ name: 'staging', mode: 'test', project_id: me.projectId })
    expect((await c.call('POST', envs, { name: 'staging', mode: 'live' })).statusCode).toBe(409)
    expect((await c.call('POST', envs, { name: 'qa', mode: 'prod' })).statusCode).toBe(400)
    const projects = (await c.call('GET', `${ws()}/projects`)).json().data.data
    expect(projects).toEqual([
      {
        id: me.projectId,
        name: 'default',
        created_at: new Date(T0).toISOString(),
        environments: [
          expect.objectContaining({ name: 'production', mode: 'live' }),
          expect.objectContaining({ name: 'staging', mode: 'test' }),
        ],
      },
    ])
  })

  it("projects, environments and keys stop at the plan's caps with 409 ERR_CONFLICT {limit, max}", async () => {
    const c = await start()
    // sign-up made project "default" with environment "production"; the fixture made key "main"
    await t.runtime.store.updateWorkspace(me.workspaceId, {
      overrides: { max_projects: 2, max_environments: 3, max_keys: 2 },
    })
    expect((await c.call('POST', `${ws()}/projects`, { name: 'api' })).statusCode).toBe(200)
    const project = await c.call('POST', `${ws()}/projects`, { name: 'third' })
    expect(project.statusCode).toBe(409)
    expect(project.json().error).toMatchObject({
      code: 'ERR_CONFLICT',
      details: { limit: 'max_projects', max: 2 },
    })
    const envs = `${ws()}/projects/${me.projectId}/environments`
    expect((await c.call('POST', envs, { name: 'staging', mode: 'test' })).statusCode).toBe(200)
    const [api] = (await c.call('GET', `${ws()}/projects`))
      .json()
      .data.data.filter((p: { name: string }) => p.name === 'api')
    expect(
      (await c.call('POST', `${ws()}/projects/${api.id}/environments`, { name: 'prod', mode: 'live' }))
        .statusCode,
    ).toBe(200)
    // the fourth environment of the workspace, in either project
    const env = await c.call('POST', envs, { name: 'qa', mode: 'test' })
    expect(env.statusCode).toBe(409)
    expect(env.json().error).toMatchObject({ details: { limit: 'max_environments', max: 3 } })
    expect((await c.call('POST', `${ws()}/keys`, { environment_id: me.environmentId })).statusCode).toBe(200)
    const key = await c.call('POST', `${ws()}/keys`, { environment_id: me.environmentId })
    expect(key.statusCode).toBe(409)
    expect(key.json().error).toMatchObject({ details: { limit: 'max_keys', max: 2 } })
  })

  it('a new key is shown once with a curl line; lists show prefix, scope, created and last used only', async () => {
    const c = await start()
    now += 1000
    const res = await c.call('POST', `${ws()}/keys`, {
      environment_id: me.environmentId,
      name: 'ci',
      families: ['hash', 'hash'],
      allowed_cidrs: ['10.0.0.0/8'],
      expires_at: new Date(now + 86_400_000).toISOString(),
    })
    expect(res.statusCode).toBe(200)
    const created = res.json().data
    expect(created.key).toMatch(/^anvil_live_[0-9A-Za-z]{36}$/)
    expect(created.prefix).toBe(created.key.slice(0, 17))
    expect(created.curl).toBe(
      `curl --cacert anvil-cert.pem https://${HOST}/v1/hash/sha256 -H 'Authorization: Bearer ${created.key}' -H 'Content-Type: application/json' -d '{"input":"hello"}'`,
    )
    expect(created.details).toMatchObject({
      name: 'ci',
      mode: 'live',
      status: 'active',
      families: ['hash'],
      allowed_cidrs: ['10.0.0.0/8'],
      project: { id: me.projectId, name: 'default' },
      environment: { id: me.environmentId, name: 'production' },
      last_used_at: null,
    })
    const list = await c.call('GET', `${ws()}/keys`)
    expect(list.body).not.toContain(created.key)
    expect(list.body).not.toContain('hash":"')
    expect(list.json().data.data.map((k: { id: string }) => k.id)).toEqual([created.id, me.keyId])
    // the scope is enforced by the gateway
    expect((await callV1(created.key, '/v1/hash/sha256', '10.1.2.3')).statusCode).toBe(200)
    expect((await callV1(created.key, '/v1/hash/sha256', '192.0.2.1')).json().error.code).toBe(
      'ERR_KEY_SCOPE',
    )
    expect((await callV1(created.key, '/v1/base64/encode', '10.1.2.3')).json().error.code).toBe(
      'ERR_KEY_SCOPE',
    )
    now += 86_400_000
    expect((await callV1(created.key, '/v1/hash/sha256', '10.1.2.3')).statusCode).toBe(401)
    expect((await c.call('GET', `${ws()}/keys`)).json().data.data[0].status).toBe('expired')
  })

  it('a test-mode environment gives anvil_test_ keys; bad options are 400 with the field named', async () => {
    const c = await start()
    const env = await c.call('POST', `${ws()}/projects/${me.projectId}/environments`, {
      name: 'dev',
      mode: 'test',
    })
    const key = await c.call('POST', `${ws()}/keys`, { environment_id: env.json().data.id })
    expect(key.json().data.key).toMatch(/^anvil_test_/)
    for (const [body, path] of [
      [{ environment_id: me.environmentId, allowed_cidrs: ['10.0.0.0/33'] }, 'allowed_cidrs.0'],
      [{ environment_id: me.environmentId, families: ['nope'] }, 'families.0'],
      [{ environment_id: me.environmentId, expires_at: new Date(T0 - 1).toISOString() }, 'expires_at'],
      [{ environment_id: me.environmentId, expires_at: 'tomorrow' }, 'expires_at'],
      [{}, 'environment_id'],
    ] as const) {
      const res = await c.call('POST', `${ws()}/keys`, body)
      expect(res.statusCode).toBe(400)
      expect(res.json().error.details.issues[0].path).toBe(path)
    }
    const unknownEnv = await c.call('POST', `${ws()}/keys`, { environment_id: 'env_nope' })
    expect(unknownEnv.statusCode).toBe(404)
  })

  it('"last used" follows the gateway\'s authenticated calls', async () => {
    const c = await start()
    now += 5_000
    expect((await callV1(me.key)).statusCode).toBe(200)
    const key = (await c.call('GET', `${ws()}/keys`)).json().data.data[0]
    expect(key.last_used_at).toBe(new Date(T0 + 5_000).toISOString())
  })

  it('rotation: the new key works at once, the old one until the grace period ends; 0 revokes now', async () => {
    const c = await start()
    const rotated = await c.call('POST', `${ws()}/keys/${me.keyId}/rotate`, { grace_seconds: 3600 })
    expect(rotated.statusCode).toBe(200)
    const { key, replaces, details, curl } = rotated.json().data
    expect(curl).toContain(key)
    expect(details).toMatchObject({ name: 'main', status: 'active', environment: { id: me.environmentId } })
    expect(replaces).toMatchObject({
      id: me.keyId,
      status: 'rotated',
      rotated_to: details.id,
      expires_at: new Date(T0 + 3_600_000).toISOString(),
    })
    expect((await callV1(key)).statusCode).toBe(200)
    expect((await callV1(me.key)).statusCode).toBe(200)
    now += 3_600_000
    expect((await callV1(me.key)).statusCode).toBe(401)
    const again = await c.call('POST', `${ws()}/keys/${details.id}/rotate`, { grace_seconds: 0 })
    expect((await callV1(key)).statusCode).toBe(401)
    expect((await callV1(again.json().data.key)).statusCode).toBe(200)
    // no body: the default 24 h grace
    const third = await c.call('POST', `${ws()}/keys/${again.json().data.id}/rotate`)
    expect(third.json().data.replaces.expires_at).toBe(new Date(now + 86_400_000).toISOString())
  })

  it('revocation refuses the key at once; revoking again is harmless; a revoked key cannot be rotated', async () => {
    const c = await start()
    expect((await callV1(me.key)).statusCode).toBe(200)
    const res = await c.call('POST', `${ws()}/keys/${me.keyId}/revoke`)
    expect(res.json().data).toMatchObject({
      id: me.keyId,
      status: 'revoked',
      revoked_at: new Date(T0).toISOString(),
    })
    expect((await callV1(me.key)).json().error.code).toBe('ERR_INVALID_API_KEY')
    expect((await c.call('POST', `${ws()}/keys/${me.keyId}/revoke`)).statusCode).toBe(200)
    const rotate = await c.call('POST', `${ws()}/keys/${me.keyId}/rotate`, { grace_seconds: 0 })
    expect(rotate.statusCode).toBe(400)
    expect(rotate.json().error.message).toBe('A revoked key cannot be rotated.')
  })

  // What the store keeps per workspace-month is bounded by the gateway's routes: calls to one route with
  // any path parameters are one endpoint (here 12 algorithms, one row), whatever the traffic.
  it('usage per endpoint: answers by outcome and latency, one row per route whatever its path parameters', async () => {
    const c = await start()
    await t.runtime.store.updateWorkspace(me.workspaceId, { plan: 'business' })
    const algorithms = ['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha3-256', 'sha3-512']
    const more = ['blake2b512', 'blake2s256', 'sha512-256', 'nope']
    for (const a of [...algorithms, ...more]) await callV1(me.key, `/v1/hash/${a}`)
    const bad = await t.app.inject({
      method: 'POST',
      url: '/v1/base64/encode',
      headers: { authorization: `Bearer ${me.key}`, 'content-type': 'application/json' },
      payload: '{"inptu":"x"}',
    })
    expect(bad.statusCode).toBe(400)
    // a wrong key has no workspace: its 401 counts nowhere (not on the hash row below)
    expect((await callV1('anvil_live_000000000000000000000000000000000000')).statusCode).toBe(401)
    const usage = (await c.call('GET', `${ws()}/usage`)).json().data
    const hash = usage.endpoints.find((e: { path: string }) => e.path === '/v1/hash/{algorithm}')
    const statuses = [...algorithms, ...more].length
    expect(usage.endpoints).toHaveLength(2)
    expect(usage.endpoints[0]).toBe(hash)
    expect(hash.ok + hash.client_errors).toBe(statuses)
    expect(hash).toMatchObject({ method: 'POST', server_errors: 0 })
    expect(hash.latency_histogram).toHaveLength(usage.latency_bounds_ms.length + 1)
    expect(hash.latency_histogram.reduce((s: number, n: number) => s + n, 0)).toBe(statuses)
    expect(hash.latency_ms.p50).toBeLessThanOrEqual(hash.latency_ms.p99)
    expect(usage.endpoints[1]).toMatchObject({
      method: 'POST',
      path: '/v1/base64/encode',
      ok: 0,
      client_errors: 1,
      server_errors: 0,
    })
    expect(usage.answers).toMatchObject({
      ok: hash.ok,
      client_errors: hash.client_errors + 1,
      server_errors: 0,
    })
    // another month has none
    const june = (await c.call('GET', `${ws()}/usage?month=2026-06`)).json().data
    expect(june).toMatchObject({ endpoints: [], answers: { ok: 0, latency_ms: null } })
  })

  it("usage: this month's requests against the quota, refusals by reason, per key and per day", async () => {
    const c = await start()
    now += 1000
    const second = (await c.call('POST', `${ws()}/keys`, { environment_id: me.environmentId })).json().data
    // the free plan allows 5 per second per key: at one instant, 5 pass and the rest are refused
    const statuses: number[] = []
    for (let i = 0; i < 7; i++) statuses.push((await callV1(me.key)).statusCode)
    expect(statuses.filter((s) => s === 200)).toHaveLength(5)
    await t.runtime.store.updateWorkspace(me.workspaceId, { overrides: { monthly_quota: 6 } })
    expect((await callV1(second.key)).statusCode).toBe(200)
    expect((await callV1(second.key)).json().error.code).toBe('ERR_QUOTA_EXCEEDED')
    const usage = (await c.call('GET', `${ws()}/usage`)).json().data
    expect(usage).toMatchObject({
      month: '2026-07',
      plan: 'free',
      limits: { monthly_quota: 6 },
      workspace: { requests: 6, refused_rate: 2, refused_quota: 1, monthly_quota: 6 },
    })
    expect(usage.keys).toEqual([
      expect.objectContaining({ id: second.id, requests: 1, refused_rate: 0, refused_quota: 1 }),
      expect.objectContaining({ id: me.keyId, name: 'main', requests: 5, refused_rate: 2, refused_quota: 0 }),
    ])
    expect(usage.daily).toHaveLength(31)
    expect(usage.daily[14]).toEqual({ date: '2026-07-15', requests: 6 })
    expect(usage.daily.reduce((s: number, d: { requests: number }) => s + d.requests, 0)).toBe(6)
    const june = (await c.call('GET', `${ws()}/usage?month=2026-06`)).json().data
    expect(june.workspace.requests).toBe(0)
    expect(june.daily).toHaveLength(30)
    expect((await c.call('GET', `${ws()}/usage?month=2026-13`)).statusCode).toBe(400)
  })

  it("usage: what the workspace's jobs keep now, against its max_job_storage_bytes (API and page)", async () => {
    const c = await start()
    await t.runtime.store.updateWorkspace(me.workspaceId, { plan: 'pro' })
    const before = (await c.call('GET', `${ws()}/usage`)).json().data
    expect(before).toMatchObject({
      job_storage_bytes: 0,
      limits: { max_job_storage_bytes: 256 * 1024 * 1024 },
    })
    const auth = { authorization: `Bearer ${me.key}` }
    const submitted = await t.app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"operation":"hash","params":{"algorithm":"sha256","input":"kept"}}',
    })
    expect(submitted.statusCode).toBe(202)
    const id = submitted.json().data.id as string
    const status = async () =>
      (await t.app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: auth })).json().data.status
    // a test gateway starts its pool threads cold
    await expect.poll(status, { timeout: 30_000 }).toBe('completed')
    const kept = await t.runtime.jobs.storedBytes(me.workspaceId)
    expect(kept).toBeGreaterThan(8 * 1024)
    expect((await c.call('GET', `${ws()}/usage`)).json().data.job_storage_bytes).toBe(kept)
    const page = (await c.call('GET', `/console/workspaces/${me.workspaceId}/usage`)).body
    expect(page).toContain(
      `<th scope="row">Job data kept now (inputs, results, records)</th><td class="num">${kept.toLocaleString('en-US')} bytes of 256 MiB</td>`,
    )
  })
})
