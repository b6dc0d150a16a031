import { randomUUID } from 'node:crypto'
import { expect, it } from 'vitest'
import type { Store } from '../../../src/store/types.ts'
import { TlsConsole } from '../../helpers/console-tls.ts'
import type { TestApp } from '../../helpers/harness.ts'
import { h1Request, type RawResponse } from '../../helpers/tls-client.ts'
import { idempotencyApps } from './idempotency-apps.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface Answer {
  data: { id: string; key?: string }
  error: { code: string; details: { issues: { path: string }[] } }
}

export interface SuiteOptions {
  // extra environment (REDIS_URL for the Redis run)
  env: () => Record<string, string>
}

// Idempotency-Key over real sockets: the public API on its TLS listener, the admin API on its plain
// listener. The same story runs on the embedded store and on a real Redis.
export function idempotencySuite({ env }: SuiteOptions): void {
  const { start: startApps } = idempotencyApps<Answer>(env)

  async function start(extra: Record<string, string> = {}, wrap?: (store: Store) => Store) {
    const { t, admin } = await startApps(extra, wrap)
    const v1 = (path: string, body: unknown, headers: Record<string, string>, apiKey = t.key) =>
      h1Request(t.url, {
        method: 'POST',
        path,
        ca: t.tls!.cert,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      })
    return { t, admin, v1 }
  }

  const listed = async (t: TestApp) => (await t.runtime.store.listWorkspaces()).length

  it('replays the first response of a create, once created, with Idempotent-Replayed', async () => {
    const { t, admin } = await start()
    const before = await listed(t)
    const first = await admin('/admin/workspaces', { name: 'acme' }, 'create-acme-1')
    expect(first.status).toBe(200)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const again = await admin('/admin/workspaces', { name: 'acme' }, 'create-acme-1')
    expect(again.status).toBe(200)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.json).toEqual(first.json)
    expect(await listed(t)).toBe(before + 1)
    // without a key, a create is a create
    await admin('/admin/workspaces', { name: 'acme' })
    expect(await listed(t)).toBe(before + 2)
  })

  it('refuses the same key with another body (422) and a malformed key (400)', async () => {
    const { admin } = await start()
    expect((await admin('/admin/workspaces', { name: 'a' }, 'k-1')).status).toBe(200)
    const other = await admin('/admin/workspaces', { name: 'b' }, 'k-1')
    expect(other.status).toBe(422)
    expect(other.json.error.code).toBe('ERR_IDEMPOTENCY_MISMATCH')
    // too long, a control character, not ASCII (fetch sends 'é' as the byte 0xE9): each answered 400
    for (const bad of ['x'.repeat(256), 'tab\there', 'é']) {
      const r = await admin('/admin/workspaces', { name: 'a' }, bad)
      expect(r.status, bad).toBe(400)
      expect(r.json.error.code).toBe('ERR_VALIDATION')
      expect(r.json.error.details.issues[0]?.path).toBe('Idempotency-Key')
    }
    expect((await admin('/admin/workspaces', { name: 'a' }, 'y'.repeat(255))).status).toBe(200)
  })

  it('keeps a 4xx the create answered (as Stripe), but not a request its schema refused', async () => {
    const { admin } = await start()
    const missing = { workspace_id: 'ws_doesnotexist' }
    const first = await admin('/admin/keys', missing, 'key-for-nothing')
    expect(first.status).toBe(404)
    const again = await admin('/admin/keys', missing, 'key-for-nothing')
    expect(again.status).toBe(404)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    // a schema refusal never started: the key is still free for the corrected request
    expect((await admin('/admin/workspaces', { name: '' }, 'fix-me')).status).toBe(400)
    expect((await admin('/admin/workspaces', { name: 'fixed' }, 'fix-me')).status).toBe(200)
  })

  it('answers 409 ERR_IDEMPOTENCY_IN_PROGRESS while the first request runs', async () => {
    let release!: () => void
    let entered!: () => void
    const gate = new Promise<void>((r) => {
      release = r
    })
    const reached = new Promise<void>((r) => {
      entered = r
    })
    // the real store, with its workspace create held until the test lets it go
    const slow = (store: Store): Store =>
      new Proxy(store, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver)
          if (typeof value !== 'function') return value
          if (prop !== 'createWorkspace') return value.bind(target)
          return async (...args: unknown[]) => {
            entered()
            await gate
            return value.apply(target, args)
          }
        },
      })
    const { admin } = await start({}, slow)
    const first = admin('/admin/workspaces', { name: 'slow' }, 'slow-1')
    await reached
    const second = await admin('/admin/workspaces', { name: 'slow' }, 'slow-1')
    expect(second.status).toBe(409)
    expect(second.json.error.code).toBe('ERR_IDEMPOTENCY_IN_PROGRESS')
    expect(second.headers.get('retry-after')).toBe('1')
    release()
    expect((await first).status).toBe(200)
    const third = await admin('/admin/workspaces', { name: 'slow' }, 'slow-1')
    expect(third.headers.get('idempotent-replayed')).toBe('true')
    expect(third.json.data.id).toBe((await first).json.data.id)
  })

  it('forgets a key after IDEMPOTENCY_TTL_SECONDS', async () => {
    const { admin } = await start({ IDEMPOTENCY_TTL_SECONDS: '1' })
    expect((await admin('/admin/workspaces', { name: 'a' }, 'short')).status).toBe(200)
    expect((await admin('/admin/workspaces', { name: 'b' }, 'short')).status).toBe(422)
    await sleep(1_300)
    const later = await admin('/admin/workspaces', { name: 'b' }, 'short')
    expect(later.status).toBe(200)
    expect(later.headers.get('idempotent-replayed')).toBeNull()
  })

  it('POST /v1/jobs: replays the job (and its Location) per workspace, never across workspaces', async () => {
    const { t, v1 } = await start()
    const body = { operation: 'hash', params: { algorithm: 'sha256', input: 'abc' } }
    const first = await v1('/v1/jobs', body, { 'idempotency-key': 'job-1' })
    expect(first.status).toBe(202)
    const again: RawResponse = await v1('/v1/jobs', body, { 'idempotency-key': 'job-1' })
    expect(again.status).toBe(202)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.headers.location).toBe(first.headers.location)
    expect(again.json()).toEqual(first.json())
    const changed = await v1(
      '/v1/jobs',
      { ...body, params: { ...body.params, input: 'abd' } },
      {
        'idempotency-key': 'job-1',
      },
    )
    expect(changed.status).toBe(422)
    // another workspace using the same key gets its own job
    const other = await t.newWorkspace()
    const theirs = await v1('/v1/jobs', body, { 'idempotency-key': 'job-1' }, other.key)
    expect(theirs.status).toBe(202)
    expect(theirs.headers['idempotent-replayed']).toBeUndefined()
    expect(theirs.json<{ data: { id: string } }>().data.id).not.toBe(
      first.json<{ data: { id: string } }>().data.id,
    )
  })

  it('admin key rotation: the same key and body replay the first rotation and never rotate twice; another body is 422', async () => {
    const { t, admin } = await start()
    const store = t.runtime.store
    const oldId = (await admin('/admin/keys', { workspace_id: t.workspaceId })).json.data.id
    const other = (await admin('/admin/keys', { workspace_id: t.workspaceId })).json.data.id
    const keys = async () => (await store.listKeys(t.workspaceId)).length
    const before = await keys()
    const first = await admin(`/admin/keys/${oldId}/rotate`, { grace_seconds: 60 }, 'rotate-1')
    expect(first.status).toBe(200)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const again = await admin(`/admin/keys/${oldId}/rotate`, { grace_seconds: 60 }, 'rotate-1')
    expect(again.status).toBe(200)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    // the same replacement, plaintext key included, and no second one
    expect(again.json).toEqual(first.json)
    expect(await keys()).toBe(before + 1)
    expect((await store.getKey(oldId))?.rotated_to).toBe(first.json.data.id)
    // the same Idempotency-Key with another body, or on another key's rotation, is another request
    const changed = await admin(`/admin/keys/${oldId}/rotate`, { grace_seconds: 0 }, 'rotate-1')
    expect(changed.status).toBe(422)
    expect(changed.json.error.code).toBe('ERR_IDEMPOTENCY_MISMATCH')
    const elsewhere = await admin(`/admin/keys/${other}/rotate`, { grace_seconds: 60 }, 'rotate-1')
    expect(elsewhere.status).toBe(422)
    // neither refused request changed anything: no revocation, no new key
    expect((await store.getKey(oldId))?.revoked_at).toBeNull()
    expect((await store.getKey(other))?.rotated_to).toBeNull()
    expect(await keys()).toBe(before + 1)
  })

  it('console: creates and key rotation replay per person; another body is 422; sign-up does not take the header', async () => {
    const { t } = await start()
    const store = t.runtime.store
    const me = new TlsConsole(t.url, t.tls!.cert)
    const email = `idem-${randomUUID()}@example.com`
    const signUp = { 'idempotency-key': 'signup-1' }
    const ws = await me.signUp(email, signUp)
    // sign-up is not replayed (docs/decisions.md): a retry creates no second account or workspace and is
    // told the account exists
    const retry = await me.call(
      'POST',
      '/console/api/signup',
      { email, password: 'correct horse battery staple', workspace_name: 'Acme' },
      signUp,
    )
    expect(retry.status).toBe(409)
    expect(retry.headers['idempotent-replayed']).toBeUndefined()
    expect(
      (await t.runtime.accounts.listMemberships((await t.runtime.accounts.findUserByEmail(email))!.id))
        .length,
    ).toBe(1)

    const base = `/console/api/workspaces/${ws}`
    const once = async (path: string, body: unknown, key: string) => {
      const first = await me.call('POST', path, body, { 'idempotency-key': key })
      expect(first.status, first.body.toString()).toBe(200)
      const again = await me.call('POST', path, body, { 'idempotency-key': key })
      expect(again.status).toBe(200)
      expect(again.headers['idempotent-replayed']).toBe('true')
      expect(again.json()).toEqual(first.json())
      return first.json<{ data: { id: string } }>().data
    }
    const project = await once(`${base}/projects`, { name: 'web' }, 'project-1')
    const env = await once(
      `${base}/projects/${project.id}/environments`,
      { name: 'prod', mode: 'live' },
      'env-1',
    )
    const key = await once(`${base}/keys`, { environment_id: env.id, name: 'ci' }, 'key-1')
    expect(await store.listKeys(ws)).toHaveLength(1)
    const mismatch = await me.call(
      'POST',
      `${base}/keys`,
      { environment_id: env.id, name: 'cd' },
      {
        'idempotency-key': 'key-1',
      },
    )
    expect(mismatch.status).toBe(422)
    expect(mismatch.json<Answer>().error.code).toBe('ERR_IDEMPOTENCY_MISMATCH')

    const rotated = await once(`${base}/keys/${key.id}/rotate`, { grace_seconds: 60 }, 'rotate-1')
    expect(await store.listKeys(ws)).toHaveLength(2)
    expect((await store.getKey(key.id))?.rotated_to).toBe(rotated.id)
    const rotateNow = await me.call(
      'POST',
      `${base}/keys/${key.id}/rotate`,
      { grace_seconds: 0 },
      {
        'idempotency-key': 'rotate-1',
      },
    )
    expect(rotateNow.status).toBe(422)
    expect((await store.getKey(key.id))?.revoked_at).toBeNull()
    expect(await store.listKeys(ws)).toHaveLength(2)

    // keys are the person's: someone else's 'key-1' is their own request
    const them = new TlsConsole(t.url, t.tls!.cert)
    const theirs = await them.signUp(`idem-${randomUUID()}@example.com`)
    const project2 = await them.call(
      'POST',
      `/console/api/workspaces/${theirs}/projects`,
      { name: 'web' },
      {
        'idempotency-key': 'project-1',
      },
    )
    expect(project2.status).toBe(200)
    expect(project2.headers['idempotent-replayed']).toBeUndefined()
  })
}
