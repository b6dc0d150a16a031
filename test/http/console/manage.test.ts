import { afterEach, describe, expect, it } from 'vitest'
import { effectiveLimits } from '../../../src/limits/plans.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { type Tenant, tenant } from './fixtures.ts'

const T0 = Date.UTC(2026, 6, 15, 10)

// Renaming and deleting workspaces, projects and environments through the console API. Another person's
// ids (404) and the signed-out and CSRF refusals of these routes are in idor.security.test.ts and
// auth.security.test.ts with every other console route.
describe('console API: rename and delete workspaces, projects and environments', () => {
  let t: TestApp
  let now = T0
  let me: Tenant
  afterEach(() => t?.close())

  async function start() {
    now = T0
    t = await startTestApp({ overrides: { clock: () => now } })
    me = await tenant(t.app, 'me@example.com')
    return me.client
  }
  const ws = () => `/console/api/workspaces/${me.workspaceId}`
  const project = () => `${ws()}/projects/${me.projectId}`
  const environment = () => `${project()}/environments/${me.environmentId}`
  const callV1 = (key: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/hash/sha256',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"input":"hello"}',
    })

  it('renames a workspace, a project and an environment; keys keep working and show the new names', async () => {
    const c = await start()
    const renamed = await c.call('PATCH', ws(), { name: '  Acme Labs ' })
    expect(renamed.statusCode).toBe(200)
    expect(renamed.json().data).toMatchObject({ id: me.workspaceId, name: 'Acme Labs', plan: 'free' })
    expect((await c.call('GET', ws())).json().data.name).toBe('Acme Labs')

    const p = await c.call('PATCH', project(), { name: 'storefront' })
    expect(p.json().data).toMatchObject({
      id: me.projectId,
      name: 'storefront',
      environments: [{ id: me.environmentId, name: 'production' }],
    })
    const e = await c.call('PATCH', environment(), { name: 'live' })
    expect(e.json().data).toEqual({
      id: me.environmentId,
      project_id: me.projectId,
      name: 'live',
      mode: 'live',
      created_at: new Date(T0).toISOString(),
    })
    expect((await callV1(me.key)).statusCode).toBe(200)
    const [key] = (await c.call('GET', `${ws()}/keys`)).json().data.data
    expect(key).toMatchObject({
      project: { id: me.projectId, name: 'storefront' },
      environment: { id: me.environmentId, name: 'live' },
    })
  })

  it('a rename to a name taken in its scope is 409 on `name`; bad names are 400; unknown ids are 404', async () => {
    const c = await start()
    const other = await c.call('POST', `${ws()}/projects`, { name: 'other' })
    const taken = await c.call('PATCH', project(), { name: 'other' })
    expect(taken.statusCode).toBe(409)
    expect(taken.json().error).toMatchObject({
      code: 'ERR_CONFLICT',
      details: { issues: [{ path: 'name', message: 'another project has this name' }] },
    })
    // the same name in another project, and its own name, are fine
    await c.call('POST', `${project()}/environments`, { name: 'staging', mode: 'test' })
    expect((await c.call('PATCH', environment(), { name: 'staging' })).statusCode).toBe(409)
    const elsewhere = `${ws()}/projects/${other.json().data.id}/environments`
    await c.call('POST', elsewhere, { name: 'qa', mode: 'test' })
    expect((await c.call('PATCH', environment(), { name: 'qa' })).statusCode).toBe(200)
    expect((await c.call('PATCH', environment(), { name: 'qa' })).statusCode).toBe(200)
    for (const body of [
      { name: '' },
      { name: '   ' },
      { name: 'x'.repeat(101) },
      {},
      { name: 'a', mode: 'test' },
    ]) {
      const res = await c.call('PATCH', environment(), body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.json().error.code).toBe('ERR_VALIDATION')
    }
    expect((await c.call('PATCH', `${ws()}/projects/prj_nope`, { name: 'x' })).statusCode).toBe(404)
    expect((await c.call('PATCH', `${project()}/environments/env_nope`, { name: 'x' })).statusCode).toBe(404)
    // an environment of another project of the same workspace is not found under this one
    const otherEnv = (await c.call('GET', elsewhere)).json().data.data[0]
    expect(
      (await c.call('PATCH', `${project()}/environments/${otherEnv.id}`, { name: 'x' })).statusCode,
    ).toBe(404)
    expect((await c.call('PATCH', '/console/api/workspaces/ws_nope', { name: 'x' })).statusCode).toBe(404)
  })

  it('deleting an environment with a live key is refused, naming the key; once revoked, both go', async () => {
    const c = await start()
    const refused = await c.call('DELETE', environment())
    expect(refused.statusCode).toBe(409)
    const error = refused.json().error
    expect(error).toMatchObject({
      code: 'ERR_CONFLICT',
      details: {
        reason: 'live_keys',
        count: 1,
        live_keys: [{ id: me.keyId, name: 'main', environment_id: me.environmentId }],
      },
    })
    expect(error.message).toMatch(
      /^This environment \(production\) has 1 live key, anvil_live_\w+… \(main\): revoke it first; deleting never revokes keys\.$/,
    )
    expect((await callV1(me.key)).statusCode).toBe(200)
    await c.call('POST', `${ws()}/keys/${me.keyId}/revoke`)
    // a key that expired on its own is not live either
    now += 1000
    const expiring = await c.call('POST', `${ws()}/keys`, {
      environment_id: me.environmentId,
      expires_at: new Date(now + 60_000).toISOString(),
    })
    expect((await c.call('DELETE', environment())).statusCode).toBe(409)
    now += 60_000
    const deleted = await c.call('DELETE', environment())
    expect(deleted.statusCode).toBe(200)
    expect(deleted.json().data).toEqual({ id: me.environmentId, deleted: true })
    expect((await c.call('GET', `${ws()}/keys`)).json().data.data).toEqual([])
    expect((await c.call('GET', `${project()}/environments`)).json().data.data).toEqual([])
    expect((await c.call('DELETE', environment())).statusCode).toBe(404)
    expect(expiring.statusCode).toBe(200)
  })

  it('a refusal names at most 10 live keys and counts them all', async () => {
    const c = await start()
    // the fixture's key and 9 more: 10, all named
    for (let i = 0; i < 9; i++) await c.call('POST', `${ws()}/keys`, { environment_id: me.environmentId })
    const ten = (await c.call('DELETE', environment())).json().error
    expect(ten.details.count).toBe(10)
    expect(ten.details.live_keys).toHaveLength(10)
    expect(ten.message).toMatch(
      /has 10 live keys, (anvil_live_\w+…(?: \(main\))?, ){9}anvil_live_\w+…(?: \(main\))?: revoke them/,
    )
    // one past it: the 11th is counted, not named
    await c.call('POST', `${ws()}/keys`, { environment_id: me.environmentId })
    const eleven = (await c.call('DELETE', environment())).json().error
    expect(eleven.details.count).toBe(11)
    expect(eleven.details.live_keys).toHaveLength(10)
    expect(eleven.message).toContain(' and 1 more: revoke them first')
  })

  it('a project goes with its environments; the usage of the month keeps the deleted keys together', async () => {
    const c = await start()
    expect((await callV1(me.key)).statusCode).toBe(200)
    await c.call('POST', `${project()}/environments`, { name: 'staging', mode: 'test' })
    const staging = (await c.call('GET', `${project()}/environments`)).json().data.data[0]
    const testKey = (await c.call('POST', `${ws()}/keys`, { environment_id: staging.id })).json().data
    const refused = await c.call('DELETE', project())
    expect(refused.json().error.details).toMatchObject({ reason: 'live_keys', count: 2 })
    expect(refused.json().error.message).toContain('has 2 live keys')
    for (const id of [me.keyId, testKey.id]) await c.call('POST', `${ws()}/keys/${id}/revoke`)
    expect((await c.call('DELETE', project())).json().data).toEqual({ id: me.projectId, deleted: true })
    expect((await c.call('GET', `${ws()}/projects`)).json().data.data).toEqual([])
    const usage = (await c.call('GET', `${ws()}/usage`)).json().data
    expect(usage.workspace.requests).toBe(1)
    expect(usage.keys).toEqual([])
    expect(usage.deleted_keys).toEqual({ requests: 1, refused_rate: 0, refused_quota: 0 })
    // a key can be created again once there is an environment again
    const again = await c.call('POST', `${ws()}/projects`, { name: 'default' })
    expect(again.json().data.id).not.toBe(me.projectId)
  })

  it('a workspace goes with everything in it, refused while keys are live or jobs in flight', async () => {
    const c = await start()
    const second = (await c.call('POST', '/console/api/workspaces', { name: 'Second' })).json().data
    const refused = await c.call('DELETE', ws())
    expect(refused.statusCode).toBe(409)
    expect(refused.json().error.message).toMatch(/^This workspace \(Acme\) has 1 live key/)
    await c.call('POST', `${ws()}/keys/${me.keyId}/revoke`)
    // jobs queued or running (a paid plan's, a few large ones: the test gateway runs one at a time)
    await t.runtime.store.updateWorkspace(me.workspaceId, { plan: 'pro' })
    const ctx = {
      workspaceId: me.workspaceId,
      plan: 'pro' as const,
      limits: effectiveLimits(t.runtime.config.plans, 'pro'),
    }
    const job = Buffer.from(
      JSON.stringify({
        operation: 'hash',
        params: { algorithm: 'sha256', input: 'x'.repeat(4 * 1024 * 1024) },
      }),
    )
    for (let i = 0; i < 3; i++) await t.runtime.jobs.submit(ctx, job)
    const busy = await c.call('DELETE', ws())
    expect(busy.statusCode).toBe(409)
    expect(busy.json().error).toMatchObject({
      details: { reason: 'jobs_in_flight', workspace_id: me.workspaceId },
    })
    expect(busy.json().error.message).toContain('has jobs queued or running')
    await expect
      .poll(
        async () =>
          (await t.runtime.jobs.list(me.workspaceId, { limit: 10, status: 'queued' }))!.data.length +
          (await t.runtime.jobs.list(me.workspaceId, { limit: 10, status: 'active' }))!.data.length,
        { timeout: 30_000, interval: 100 },
      )
      .toBe(0)
    const deleted = await c.call('DELETE', ws())
    expect(deleted.json().data).toEqual({ id: me.workspaceId, deleted: true })
    expect((await c.call('GET', ws())).statusCode).toBe(404)
    const left = (await c.call('GET', '/console/api/workspaces')).json().data.data
    expect(left.map((w: { id: string }) => w.id)).toEqual([second.id])
    expect(await t.runtime.store.getWorkspace(me.workspaceId)).toBeUndefined()
    expect(await t.runtime.accounts.getMembership(me.client.userId!, me.workspaceId)).toBeUndefined()
    // the place it held under CONSOLE_MAX_WORKSPACES is free again; the revoked key is refused as before
    expect((await callV1(me.key)).json().error.code).toBe('ERR_INVALID_API_KEY')
    expect((await c.call('DELETE', ws())).statusCode).toBe(404)
  })

  it('a free workspace is not offered the jobs family; a paid one is', async () => {
    const c = await start()
    const refused = await c.call('POST', `${ws()}/keys`, {
      environment_id: me.environmentId,
      families: ['hash', 'jobs'],
    })
    expect(refused.statusCode).toBe(400)
    expect(refused.json().error).toMatchObject({
      code: 'ERR_VALIDATION',
      message: 'The jobs family needs a paid plan.',
      details: { issues: [{ path: 'families', message: 'jobs: not on the free plan' }] },
    })
    await t.runtime.store.updateWorkspace(me.workspaceId, { plan: 'pro' })
    const ok = await c.call('POST', `${ws()}/keys`, { environment_id: me.environmentId, families: ['jobs'] })
    expect(ok.statusCode).toBe(200)
    expect(ok.json().data.details.families).toEqual(['jobs'])
  })
})
