import { afterEach, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { ConsoleClient, cookiesOf, PASSWORD } from './console-client.ts'
import { type Tenant, tenant } from './fixtures.ts'

const T0 = Date.UTC(2026, 6, 15, 10)
const NEW_PASSWORD = 'another long passphrase'

describe('console API: change the password, delete the account', () => {
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
  const callV1 = (key: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/hash/sha256',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"input":"hello"}',
    })

  it('a new password needs the current one; every other session is signed out, this one gets a new one', async () => {
    const c = await start()
    const laptop = new ConsoleClient(t.app, '198.51.100.20')
    expect((await laptop.signIn('me@example.com')).statusCode).toBe(200)
    const wrong = await c.call('POST', '/console/api/account/password', {
      current_password: 'not the password',
      new_password: NEW_PASSWORD,
    })
    expect(wrong.statusCode).toBe(400)
    expect(wrong.json().error).toMatchObject({
      code: 'ERR_VALIDATION',
      message: 'The password is wrong.',
      details: { issues: [{ path: 'current_password' }] },
    })
    const short = await c.call('POST', '/console/api/account/password', {
      current_password: PASSWORD,
      new_password: 'short',
    })
    expect(short.statusCode).toBe(400)
    expect(short.json().error.details.issues[0].path).toBe('new_password')
    expect((await laptop.call('GET', '/console/api/session')).statusCode).toBe(200)

    const oldCookie = c.cookie
    const oldCsrf = c.csrf
    const changed = await c.call('POST', '/console/api/account/password', {
      current_password: PASSWORD,
      new_password: NEW_PASSWORD,
    })
    expect(changed.statusCode).toBe(200)
    const data = changed.json().data
    expect(data).toMatchObject({ user: { email: 'me@example.com' }, other_sessions_ended: 1 })
    expect(data.csrf_token).not.toBe(oldCsrf)
    expect(changed.body).not.toContain(NEW_PASSWORD)
    expect(cookiesOf(changed)).toHaveLength(1)
    expect(c.cookie).not.toBe(oldCookie)
    // this browser goes on with its new session; the laptop and the old cookie are signed out
    expect((await c.call('GET', '/console/api/session')).json().data.csrf_token).toBe(data.csrf_token)
    expect((await laptop.call('GET', '/console/api/session')).statusCode).toBe(401)
    const stale = new ConsoleClient(t.app)
    stale.cookie = oldCookie
    expect((await stale.call('GET', '/console/api/session')).statusCode).toBe(401)
    expect((await new ConsoleClient(t.app).signIn('me@example.com')).statusCode).toBe(401)
    expect((await new ConsoleClient(t.app).signIn('me@example.com', NEW_PASSWORD)).statusCode).toBe(200)
    // API keys are not sessions: they keep working
    expect((await callV1(me.key)).statusCode).toBe(200)
  })

  it('password checks are limited like sign-in attempts (5, then a growing delay, 429 with Retry-After)', async () => {
    const c = await start()
    const attempt = () =>
      c.call('POST', '/console/api/account/delete', { password: 'not the password at all' })
    for (let i = 0; i < 5; i++) expect((await attempt()).statusCode).toBe(400)
    const limited = await attempt()
    expect(limited.statusCode).toBe(429)
    expect(limited.json().error.code).toBe('ERR_RATE_LIMITED')
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    // even the right password waits its turn
    expect((await c.call('POST', '/console/api/account/delete', { password: PASSWORD })).statusCode).toBe(429)
    expect((await c.call('GET', '/console/api/session')).statusCode).toBe(200)
  })

  it('deleting the account is refused while a workspace it owns has live keys; then everything goes', async () => {
    const c = await start()
    const other = await tenant(t.app, 'other@example.com', '198.51.100.30')
    // the first workspace has no live key, the newer one has: whatever their order, nothing may go
    await c.call('POST', `/console/api/workspaces/${me.workspaceId}/keys/${me.keyId}/revoke`)
    const side = (await c.call('POST', '/console/api/workspaces', { name: 'Side' })).json().data
    const sideProjects = (await c.call('GET', `/console/api/workspaces/${side.id}/projects`)).json().data.data
    const sideKey = (
      await c.call('POST', `/console/api/workspaces/${side.id}/keys`, {
        environment_id: sideProjects[0].environments[0].id,
      })
    ).json().data
    expect((await c.call('POST', '/console/api/account/delete', { password: 'wrong one!' })).statusCode).toBe(
      400,
    )
    const refused = await c.call('POST', '/console/api/account/delete', { password: PASSWORD })
    expect(refused.statusCode).toBe(409)
    expect(refused.json().error).toMatchObject({
      code: 'ERR_CONFLICT',
      details: { reason: 'live_keys', count: 1, live_keys: [{ id: sideKey.id }] },
    })
    expect(refused.json().error.message).toMatch(/^This workspace \(Side\) has 1 live key/)
    // nothing was deleted: not the workspace without live keys either
    expect((await c.call('GET', '/console/api/workspaces')).json().data.data).toHaveLength(2)
    expect(await t.runtime.store.getWorkspace(me.workspaceId)).toBeDefined()

    await c.call('POST', `/console/api/workspaces/${side.id}/keys/${sideKey.id}/revoke`)
    const deleted = await c.call('POST', '/console/api/account/delete', { password: PASSWORD })
    expect(deleted.statusCode).toBe(200)
    expect(deleted.json().data).toEqual({ id: c.userId, deleted: true })
    expect(cookiesOf(deleted)[0]).toMatch(/^anvil_session=; Path=\/console; Max-Age=0;/)
    for (const id of [me.workspaceId, side.id]) expect(await t.runtime.store.getWorkspace(id)).toBeUndefined()
    expect(await t.runtime.accounts.getUser(c.userId!)).toBeUndefined()
    expect((await new ConsoleClient(t.app).signIn('me@example.com')).statusCode).toBe(401)
    // the email is free again; the other person is untouched
    expect((await new ConsoleClient(t.app, '198.51.100.40').signUp('me@example.com')).user.id).not.toBe(
      c.userId,
    )
    expect((await other.client.call('GET', '/console/api/workspaces')).json().data.data).toHaveLength(1)
    expect((await callV1(other.key)).statusCode).toBe(200)
  })

  it('both ask a JSON body of their own fields only', async () => {
    const c = await start()
    for (const [url, body] of [
      ['/console/api/account/password', { current_password: PASSWORD }],
      ['/console/api/account/password', { current_password: PASSWORD, new_password: NEW_PASSWORD, x: 1 }],
      ['/console/api/account/delete', {}],
      ['/console/api/account/delete', { password: PASSWORD, confirm: true }],
    ] as const) {
      const res = await c.call('POST', url, body)
      expect(res.statusCode, `${url} ${JSON.stringify(body)}`).toBe(400)
      expect(res.json().error.code).toBe('ERR_VALIDATION')
    }
    expect((await c.call('GET', '/console/api/session')).statusCode).toBe(200)
  })
})
