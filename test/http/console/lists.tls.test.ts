import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TlsConsole } from '../../helpers/console-tls.ts'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../../helpers/harness.ts'

// newest first: creation time, then id (two made in one millisecond)
function expectNewestFirst(rows: { id: string; created_at: string }[]) {
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1]!, rows[i]!]
    expect(a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id)).toBe(true)
  }
}

interface KeyRow {
  id: string
  created_at: string
  prefix: string
  families: string[] | null
  allowed_cidrs: string[] | null
  expires_at: string | null
  monthly_quota: number | null
  status: string
  replaced_by: { id: string; prefix: string } | null
  rotated_from: { id: string; prefix: string } | null
}

// The console's lists and the admin lists over real sockets: the console on the public TLS listener
// (HTTP/1.1 and HTTP/2), the admin API on its own plain-HTTP listener. Pages (limit, starting_after,
// has_more) and the key list's scope columns; the stores' page logic is tested in depth elsewhere.
describe('console and admin lists over real sockets', () => {
  let t: TestApp
  let me: TlsConsole
  let workspaceId: string
  let adminUrl: string
  beforeAll(async () => {
    t = await startTestApp({ listen: true })
    await t.admin.listen({ port: 0, host: '127.0.0.1' })
    adminUrl = `http://127.0.0.1:${(t.admin.server.address() as { port: number }).port}`
    me = new TlsConsole(t.url, t.tls!.cert)
    workspaceId = await me.signUp('lists-tls@example.com')
  })
  afterAll(() => t?.close())

  const ok = async <T>(res: Promise<{ status: number; json<U>(): U }>) => {
    const r = await res
    expect(r.status).toBe(200)
    return r.json<{ data: T }>().data
  }
  // every page of a console list, following has_more, alternating HTTP/1.1 and HTTP/2
  async function walk<T extends { id: string }>(path: string, limit: number) {
    const h2 = new TlsConsole(t.url, t.tls!.cert, { h2: true })
    h2.cookie = me.cookie
    const pages: T[][] = []
    let after: string | undefined
    for (;;) {
      const client = pages.length % 2 === 0 ? me : h2
      const query = `limit=${limit}${after ? `&starting_after=${after}` : ''}`
      const page = await ok<{ data: T[]; has_more: boolean }>(client.call('GET', `${path}?${query}`))
      pages.push(page.data)
      if (!page.has_more) return pages
      expect(page.data).toHaveLength(limit)
      after = page.data.at(-1)!.id
    }
  }

  it("the console's workspaces, newest first, in pages", async () => {
    const made = [workspaceId]
    for (const name of ['b', 'c', 'd', 'e']) {
      made.push((await ok<{ id: string }>(me.call('POST', '/console/api/workspaces', { name }))).id)
    }
    const pages = await walk<{ id: string; created_at: string }>('/console/api/workspaces', 2)
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1])
    expect(new Set(pages.flat().map((w) => w.id))).toEqual(new Set(made))
    expectNewestFirst(pages.flat())
    const foreign = await me.call('GET', `/console/api/workspaces?starting_after=${t.workspaceId}`)
    expect(foreign.status).toBe(400)
    expect(
      foreign.json<{ error: { details: { issues: { path: string }[] } } }>().error.details.issues[0]!.path,
    ).toBe('starting_after')
  })

  it("the console's keys, in pages, with their scope and both ends of a rotation", async () => {
    const base = `/console/api/workspaces/${workspaceId}`
    const project = await ok<{ id: string }>(me.call('POST', `${base}/projects`, { name: 'web' }))
    const env = await ok<{ id: string }>(
      me.call('POST', `${base}/projects/${project.id}/environments`, { name: 'production', mode: 'live' }),
    )
    const scoped = await ok<{ id: string }>(
      me.call('POST', `${base}/keys`, {
        environment_id: env.id,
        name: 'scoped',
        families: ['hash', 'jwt'],
        allowed_cidrs: ['203.0.113.0/24'],
        expires_at: '2099-01-31T00:00:00.000Z',
      }),
    )
    // a key quota is set by an operator (admin API, its own listener)
    const quota = await fetch(`${adminUrl}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        workspace_id: workspaceId,
        project: 'web',
        environment: 'production',
        monthly_quota: 25_000,
      }),
    })
    expect(quota.status).toBe(200)
    const quotaId = ((await quota.json()) as { data: { id: string } }).data.id
    const plain = await ok<{ id: string }>(me.call('POST', `${base}/keys`, { environment_id: env.id }))
    const rotated = await ok<{ id: string }>(
      me.call('POST', `${base}/keys/${scoped.id}/rotate`, { grace_seconds: 3600 }),
    )

    const rows = (await walk<KeyRow>(`${base}/keys`, 3)).flat()
    expect(new Set(rows.map((k) => k.id))).toEqual(new Set([rotated.id, plain.id, quotaId, scoped.id]))
    expect(rows).toHaveLength(4)
    expectNewestFirst(rows)
    const byId = new Map(rows.map((k) => [k.id, k]))
    const old = byId.get(scoped.id)!
    const replacement = byId.get(rotated.id)!
    for (const k of [old, replacement]) {
      expect(k).toMatchObject({
        families: ['hash', 'jwt'],
        allowed_cidrs: ['203.0.113.0/24'],
        monthly_quota: null,
      })
    }
    expect(replacement.expires_at).toBe('2099-01-31T00:00:00.000Z')
    expect(old.status).toBe('rotated')
    expect(old.replaced_by).toEqual({ id: replacement.id, prefix: replacement.prefix })
    expect(replacement.rotated_from).toEqual({ id: old.id, prefix: old.prefix })
    expect(byId.get(quotaId)).toMatchObject({ monthly_quota: 25_000, families: null, allowed_cidrs: null })
    expect(byId.get(plain.id)).toMatchObject({
      families: null,
      expires_at: null,
      replaced_by: null,
      rotated_from: null,
    })
  })

  it('the admin lists, over the admin listener, in pages', async () => {
    const get = async (path: string) => {
      const r = await fetch(`${adminUrl}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      expect(r.status).toBe(200)
      return ((await r.json()) as { data: { data: { id: string }[]; has_more: boolean } }).data
    }
    const all = (await get('/admin/workspaces?limit=100')).data.map((w) => w.id)
    expect(all.length).toBeGreaterThanOrEqual(6)
    const first = await get('/admin/workspaces?limit=4')
    expect(first).toMatchObject({ has_more: true })
    const rest = await get(`/admin/workspaces?limit=100&starting_after=${first.data.at(-1)!.id}`)
    expect([...first.data, ...rest.data].map((w) => w.id)).toEqual(all)
    expect(rest.has_more).toBe(false)
    const keys = await get(`/admin/keys?workspace_id=${workspaceId}&limit=2`)
    expect(keys.data).toHaveLength(2)
    expect(keys.has_more).toBe(true)
    const more = await get(
      `/admin/keys?workspace_id=${workspaceId}&limit=10&starting_after=${keys.data[1]!.id}`,
    )
    expect(more.data).toHaveLength(2)
    expect(more.has_more).toBe(false)
  })
})
