import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../../helpers/harness.ts'
import { tenant } from '../console/fixtures.ts'

interface ListPage {
  data: { id: string; key?: string }[]
  has_more: boolean
}

// Every list answers {ok, data: {data, has_more}}, newest first, with limit and starting_after; the same
// query rules everywhere (limit 1–100, a cursor not in the list is a 400 naming starting_after).
describe('pagination of every list', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp()
  })
  afterAll(() => t.close())

  const admin = async (url: string) => {
    const r = await t.admin.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    })
    return { status: r.statusCode, body: r.json() }
  }

  async function walk(
    get: (query: string) => Promise<{ status: number; body: { data: ListPage } }>,
    limit: number,
  ) {
    const ids: string[] = []
    let after: string | undefined
    for (let i = 0; i < 100; i++) {
      const r = await get(`limit=${limit}${after ? `&starting_after=${after}` : ''}`)
      expect(r.status).toBe(200)
      ids.push(...r.body.data.data.map((x) => x.id))
      if (!r.body.data.has_more) return ids
      after = r.body.data.data.at(-1)!.id
    }
    throw new Error('never ended')
  }

  it('admin workspaces and keys: every item once, newest first, pages of `limit`', async () => {
    for (let i = 0; i < 6; i++) await t.runtime.store.createWorkspace({ name: `p${i}`, plan: 'free' })
    for (let i = 0; i < 4; i++) await t.newKey()
    const all = await admin('/admin/workspaces?limit=100')
    const everyWs = (all.body.data as ListPage).data.map((w) => w.id)
    expect(everyWs.length).toBeGreaterThanOrEqual(7)
    expect(await walk((q) => admin(`/admin/workspaces?${q}`), 2)).toEqual(everyWs)
    const created = (await t.runtime.store.listWorkspaces()).map((w) => w.created_at)
    expect([...created].sort().reverse()).toEqual(
      (all.body.data as ListPage).data.map((w) => (w as never as { created_at: string }).created_at),
    )

    const keys = await walk((q) => admin(`/admin/keys?workspace_id=${t.workspaceId}&${q}`), 3)
    expect(keys).toHaveLength(5)
    const first = await admin(`/admin/keys?workspace_id=${t.workspaceId}`)
    expect((first.body.data as ListPage).data.map((k) => k.id)).toEqual(keys)
    expect((first.body.data as ListPage).data[0]!.key).toBeUndefined()
  })

  it('refuses a limit out of 1–100 and a cursor the list does not hold, naming the field', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=x', 'starting_after=ws_nope']) {
      const r = await admin(`/admin/workspaces?${q}`)
      expect(r.status, q).toBe(400)
      expect(r.body.error.code).toBe('ERR_VALIDATION')
      expect(JSON.stringify(r.body.error.details.issues)).toMatch(/limit|starting_after/)
    }
    const other = await t.newWorkspace()
    const r = await admin(`/admin/keys?workspace_id=${t.workspaceId}&starting_after=${other.keyId}`)
    expect(r.status).toBe(400)
    expect(r.body.error.details.issues[0].path).toBe('starting_after')
  })

  // a mistyped or uncopied filter (issue 28: '$WORKSPACE_ID' sent literally) must not read as "no keys"
  it('refuses a filter naming no workspace instead of answering an empty list', async () => {
    for (const id of ['ws_doesNotExist000000000000', '$WORKSPACE_ID']) {
      const r = await admin(`/admin/keys?workspace_id=${encodeURIComponent(id)}`)
      expect(r.status, id).toBe(400)
      expect(r.body.error.code).toBe('ERR_VALIDATION')
      expect(r.body.error.details.issues).toEqual([
        { path: 'workspace_id', message: 'is not the id of a workspace' },
      ])
    }
  })

  it('console workspaces, projects, environments and keys page the same way', async () => {
    const me = await tenant(t.app, 'pager@example.com')
    const ws = `/console/api/workspaces/${me.workspaceId}`
    const get = async (url: string) => {
      const r = await me.client.call('GET', url)
      return { status: r.statusCode, body: r.json() }
    }
    for (const name of ['second', 'third']) {
      expect((await me.client.call('POST', '/console/api/workspaces', { name })).statusCode).toBe(200)
    }
    const workspaces = await walk((q) => get(`/console/api/workspaces?${q}`), 1)
    expect(workspaces).toHaveLength(3)
    expect(workspaces.at(-1)).toBe(me.workspaceId)

    for (const name of ['api', 'jobs']) {
      expect((await me.client.call('POST', `${ws}/projects`, { name })).statusCode).toBe(200)
    }
    const projects = await walk((q) => get(`${ws}/projects?${q}`), 2)
    expect(projects).toHaveLength(3)
    expect(projects.at(-1)).toBe(me.projectId)

    await me.client.call('POST', `${ws}/projects/${me.projectId}/environments`, {
      name: 'staging',
      mode: 'test',
    })
    const envs = await walk((q) => get(`${ws}/projects/${me.projectId}/environments?${q}`), 1)
    expect(envs).toHaveLength(2)
    expect(envs.at(-1)).toBe(me.environmentId)

    const made = await me.client.call('POST', `${ws}/keys`, { environment_id: me.environmentId })
    const keys = await walk((q) => get(`${ws}/keys?${q}`), 1)
    expect(keys).toEqual([made.json().data.id, me.keyId])
    expect((await get(`${ws}/keys?starting_after=key_nope`)).status).toBe(400)
  })

  it('console creates honour Idempotency-Key per person', async () => {
    const me = await tenant(t.app, 'retry@example.com')
    const ws = `/console/api/workspaces/${me.workspaceId}`
    const headers = { 'idempotency-key': 'console-create-1' }
    const body = { environment_id: me.environmentId, name: 'ci' }
    const first = await me.client.call('POST', `${ws}/keys`, body, { headers })
    expect(first.statusCode).toBe(200)
    const again = await me.client.call('POST', `${ws}/keys`, body, { headers })
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.json().data.key).toBe(first.json().data.key)
    const list = (await me.client.call('GET', `${ws}/keys?limit=100`)).json().data.data
    expect(list.filter((k: { name: string }) => k.name === 'ci')).toHaveLength(1)
    // the same key from another person is another request: nothing of the first is replayed to them
    const other = await tenant(t.app, 'other@example.com', '198.51.100.77')
    const theirs = await other.client.call(
      'POST',
      `/console/api/workspaces/${other.workspaceId}/keys`,
      { environment_id: other.environmentId, name: 'ci' },
      { headers },
    )
    expect(theirs.statusCode).toBe(200)
    expect(theirs.headers['idempotent-replayed']).toBeUndefined()
    expect(theirs.json().data.key).not.toBe(first.json().data.key)
  })
})
