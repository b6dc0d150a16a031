import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { ConsoleClient } from './console-client.ts'
import { type Tenant, tenant } from './fixtures.ts'

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'
interface Probe {
  method: Method
  // the OpenAPI path template this probe covers
  route: string
  url: (victim: Tenant, self: Tenant) => string
  body?: (victim: Tenant, self: Tenant) => unknown
}

const API = '/console/api'

// Every console route that names an id, called by another signed-in user with the victim's ids, both
// alone and mixed into the caller's own workspace. Each must answer 404 and change nothing.
const PROBES: Probe[] = [
  { method: 'GET', route: '/workspaces/{workspace_id}', url: (v) => `${API}/workspaces/${v.workspaceId}` },
  {
    method: 'GET',
    route: '/workspaces/{workspace_id}/usage',
    url: (v) => `${API}/workspaces/${v.workspaceId}/usage`,
  },
  {
    method: 'GET',
    route: '/workspaces/{workspace_id}/projects',
    url: (v) => `${API}/workspaces/${v.workspaceId}/projects`,
  },
  {
    method: 'POST',
    route: '/workspaces/{workspace_id}/projects',
    url: (v) => `${API}/workspaces/${v.workspaceId}/projects`,
    body: () => ({ name: 'intruder' }),
  },
  {
    method: 'POST',
    route: '/workspaces/{workspace_id}/projects/{project_id}/environments',
    url: (v) => `${API}/workspaces/${v.workspaceId}/projects/${v.projectId}/environments`,
    body: () => ({ name: 'intruder', mode: 'test' }),
  },
  {
    method: 'POST',
    route: '/workspaces/{workspace_id}/projects/{project_id}/environments',
    url: (v, s) => `${API}/workspaces/${s.workspaceId}/projects/${v.projectId}/environments`,
    body: () => ({ name: 'intruder', mode: 'test' }),
  },
  {
    method: 'GET',
    route: '/workspaces/{workspace_id}/projects/{project_id}/environments',
    url: (v) => `${API}/workspaces/${v.workspaceId}/projects/${v.projectId}/environments`,
  },
  {
    method: 'GET',
    route: '/workspaces/{workspace_id}/projects/{project_id}/environments',
    url: (v, s) => `${API}/workspaces/${s.workspaceId}/projects/${v.projectId}/environments`,
  },
  {
    method: 'GET',
    route: '/workspaces/{workspace_id}/keys',
    url: (v) => `${API}/workspaces/${v.workspaceId}/keys`,
  },
  {
    method: 'POST',
    route: '/workspaces/{workspace_id}/keys',
    url: (v) => `${API}/workspaces/${v.workspaceId}/keys`,
    body: (v) => ({ environment_id: v.environmentId }),
  },
  {
    method: 'POST',
    route: '/workspaces/{workspace_id}/keys',
    url: (_v, s) => `${API}/workspaces/${s.workspaceId}/keys`,
    body: (v) => ({ environment_id: v.environmentId }),
  },
  {
    method: 'POST',
    route: '/workspaces/{workspace_id}/keys/{key_id}/rotate',
    url: (v) => `${API}/workspaces/${v.workspaceId}/keys/${v.keyId}/rotate`,
    body: () => ({ grace_seconds: 0 }),
  },
  {
    method: 'POST',
    route: '/workspaces/{workspace_id}/keys/{key_id}/rotate',
    url: (v, s) => `${API}/workspaces/${s.workspaceId}/keys/${v.keyId}/rotate`,
    body: () => ({ grace_seconds: 0 }),
  },
  {
    method: 'POST',
    route: '/workspaces/{workspace_id}/keys/{key_id}/revoke',
    url: (v) => `${API}/workspaces/${v.workspaceId}/keys/${v.keyId}/revoke`,
  },
  {
    method: 'POST',
    route: '/workspaces/{workspace_id}/keys/{key_id}/revoke',
    url: (v, s) => `${API}/workspaces/${s.workspaceId}/keys/${v.keyId}/revoke`,
  },
  {
    method: 'PATCH',
    route: '/workspaces/{workspace_id}',
    url: (v) => `${API}/workspaces/${v.workspaceId}`,
    body: () => ({ name: 'pwned' }),
  },
  { method: 'DELETE', route: '/workspaces/{workspace_id}', url: (v) => `${API}/workspaces/${v.workspaceId}` },
  ...(['PATCH', 'DELETE'] as const).flatMap((method): Probe[] => {
    const body = method === 'PATCH' ? { body: () => ({ name: 'pwned' }) } : {}
    const project = '/workspaces/{workspace_id}/projects/{project_id}'
    const environment = `${project}/environments/{environment_id}`
    const at = (ws: string, p: string, e?: string) =>
      `${API}/workspaces/${ws}/projects/${p}${e === undefined ? '' : `/environments/${e}`}`
    const urls: [string, Probe['url']][] = [
      [project, (v) => at(v.workspaceId, v.projectId)],
      [project, (v, s) => at(s.workspaceId, v.projectId)],
      [environment, (v) => at(v.workspaceId, v.projectId, v.environmentId)],
      [environment, (v, s) => at(s.workspaceId, v.projectId, v.environmentId)],
      [environment, (v, s) => at(s.workspaceId, s.projectId, v.environmentId)],
    ]
    return urls.map(([route, url]) => ({ method, route, url, ...body }))
  }),
]

const PAGES = ['', '/keys', '/usage', '/settings']

describe("console authorization: another user's ids answer 404", () => {
  let t: TestApp
  let victim: Tenant
  let attacker: Tenant

  beforeAll(async () => {
    t = await startTestApp()
    victim = await tenant(t.app, 'victim@example.com', '198.51.100.1')
    attacker = await tenant(t.app, 'attacker@example.com', '198.51.100.2')
  })
  afterAll(() => t.close())

  it('covers every console API route that takes an id', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, { tags: string[] }>>
    }
    const withIds = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith(API) && path.includes('{'))
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.slice(API.length)}`))
    expect(new Set(PROBES.map((p) => `${p.method} ${p.route}`))).toEqual(new Set(withIds))
    // and the console routes are documented under their own tag
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (path.startsWith(API)) for (const op of Object.values(ops)) expect(op.tags).toEqual(['Console'])
    }
  })

  for (const probe of PROBES) {
    it(`${probe.method} ${probe.route} (${probe.url({ workspaceId: 'V', projectId: 'P', environmentId: 'E', keyId: 'K' } as Tenant, { workspaceId: 'S', projectId: 'SP' } as Tenant).replace(API, '')})`, async () => {
      const res = await attacker.client.call(
        probe.method,
        probe.url(victim, attacker),
        probe.body?.(victim, attacker),
      )
      expect(res.statusCode).toBe(404)
      expect(res.json().error).toMatchObject({ type: 'invalid_request', code: 'ERR_NOT_FOUND' })
      expect(res.body).not.toContain(victim.key)
    })
  }

  it('a foreign id and a made-up id get the same answer', async () => {
    const foreign = await attacker.client.call('GET', `${API}/workspaces/${victim.workspaceId}`)
    const madeUp = await attacker.client.call('GET', `${API}/workspaces/ws_doesnotexist0000000`)
    expect(foreign.json().error.message.replace(victim.workspaceId, 'ID')).toBe(
      madeUp.json().error.message.replace('ws_doesnotexist0000000', 'ID'),
    )
  })

  for (const page of PAGES) {
    it(`page /console/workspaces/{id}${page} is a 404 page`, async () => {
      const res = await attacker.client.call('GET', `/console/workspaces/${victim.workspaceId}${page}`)
      expect(res.statusCode).toBe(404)
      expect(res.headers['content-type']).toContain('text/html')
      expect(res.body).toContain('Not found')
      expect(res.body).not.toContain('victim@example.com')
    })
  }

  it("nothing of the victim's changed, and the victim's key still works", async () => {
    const workspace = await victim.client.call('GET', `${API}/workspaces/${victim.workspaceId}`)
    expect(workspace.json().data.name).toBe('Acme')
    const projects = await victim.client.call('GET', `${API}/workspaces/${victim.workspaceId}/projects`)
    expect(projects.json().data.data).toEqual([
      expect.objectContaining({
        name: 'default',
        environments: [expect.objectContaining({ name: 'production' })],
      }),
    ])
    const keys = (await victim.client.call('GET', `${API}/workspaces/${victim.workspaceId}/keys`)).json().data
      .data
    expect(keys).toHaveLength(1)
    expect(keys[0]).toMatchObject({ id: victim.keyId, status: 'active', rotated_to: null })
    const call = await t.post('/v1/hash/sha256', { input: 'x' }, { authorization: `Bearer ${victim.key}` })
    expect(call.statusCode).toBe(200)
    const attackerKeys = (
      await attacker.client.call('GET', `${API}/workspaces/${attacker.workspaceId}/keys`)
    ).json()
    expect(attackerKeys.data.data).toHaveLength(1)
  })

  it('signed out, every console API route answers 401 (and writes need the session first)', async () => {
    const anon = new ConsoleClient(t.app)
    for (const probe of PROBES) {
      const res = await anon.call(probe.method, probe.url(victim, victim), probe.body?.(victim, victim))
      expect(res.statusCode).toBe(401)
      expect(res.json().error.code).toBe('ERR_UNAUTHORIZED')
    }
    for (const [method, url] of [
      ['GET', `${API}/workspaces`],
      ['POST', `${API}/workspaces`],
      ['GET', `${API}/session`],
      ['POST', `${API}/signout`],
      ['POST', `${API}/account/password`],
      ['POST', `${API}/account/delete`],
    ] as const) {
      const res = await anon.call(method, url, method === 'POST' ? { name: 'x' } : undefined)
      expect(res.statusCode).toBe(401)
    }
    const page = await anon.call('GET', `/console/workspaces/${victim.workspaceId}/keys`)
    expect(page.statusCode).toBe(303)
    expect(page.headers.location).toBe(
      `/console/sign-in?next=${encodeURIComponent(`/console/workspaces/${victim.workspaceId}/keys`)}`,
    )
  })
})
