import { randomUUID } from 'node:crypto'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { MAX_SESSIONS_PER_PERSON } from '../../../src/accounts/session.ts'
import { TlsConsole } from '../../helpers/console-tls.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { describeRedis, type RedisServer, startRedis } from '../../helpers/redis-server.ts'

type ErrorBody = { error: { code: string; details?: Record<string, unknown> } }

// Every cap on what a console account or a workspace creates holds under parallel creates over a real
// socket, on both stores (and a person's sessions are bounded: successful sign-ins are not limited): 15 parallel POST /console/api/workspaces from one account under
// CONSOLE_MAX_WORKSPACES=10 answered 200 fifteen times (16 workspaces, each with its own free quota;
// issue 27). Each burst gets exactly the places left; the rest 409 ERR_CONFLICT.
function consoleCapsSuite(env: () => Record<string, string>) {
  let t: TestApp | undefined
  afterEach(async () => {
    await t?.close()
    t = undefined
  })

  async function signedIn(extra: Record<string, string> = {}) {
    t = await startTestApp({ listen: true, env: { ...env(), ...extra } })
    const me = new TlsConsole(t.url, t.tls!.cert)
    const email = `caps-${randomUUID()}@example.com`
    const workspaceId = await me.signUp(email)
    return { me, workspaceId, t, email }
  }

  async function burst(n: number, call: (i: number) => ReturnType<TlsConsole['call']>) {
    const all = await Promise.all(Array.from({ length: n }, (_, i) => call(i)))
    const refused = all.filter((r) => r.status === 409).map((r) => r.json<ErrorBody>().error)
    return { ok: all.filter((r) => r.status === 200).length, refused, statuses: all.map((r) => r.status) }
  }

  it('workspaces: 15 parallel creates under CONSOLE_MAX_WORKSPACES=10 make exactly 9 (the sign-up one is the 10th)', async () => {
    const { me } = await signedIn({ CONSOLE_MAX_WORKSPACES: '10' })
    const r = await burst(15, (i) => me.call('POST', '/console/api/workspaces', { name: `w${i}` }))
    expect(r.ok, String(r.statuses)).toBe(9)
    expect(r.refused).toHaveLength(6)
    for (const e of r.refused) expect(e).toMatchObject({ code: 'ERR_CONFLICT', details: { limit: 10 } })
    const listed = (await me.call('GET', '/console/api/workspaces?limit=100')).json<{
      data: { data: { id: string }[] }
    }>().data.data
    expect(listed).toHaveLength(10)
    // nothing else was made: every workspace the store holds beyond the harness's has an owner listed
    const all = await t!.runtime.store.listWorkspaces()
    expect(all.length).toBe(10 + 1)
    // a refused place is no place: still full
    expect((await me.call('POST', '/console/api/workspaces', { name: 'again' })).status).toBe(409)
  })

  it(`sessions: signing in again and again keeps a person's ${MAX_SESSIONS_PER_PERSON} newest, the oldest are signed out`, async () => {
    // sign-ins from one address are limited (20, then a growing delay): these come from many, as a
    // person's devices or an attacker's would (TRUST_PROXY=1 believes the X-Forwarded-For)
    const { me, t, email } = await signedIn({ TRUST_PROXY: '1' })
    const browsers: TlsConsole[] = [me]
    for (let i = 0; i < MAX_SESSIONS_PER_PERSON + 4; i++) {
      const browser = new TlsConsole(t.url, t.tls!.cert)
      const body = { email, password: 'correct horse battery staple' }
      const r = await browser.call('POST', '/console/api/signin', body, {
        'x-forwarded-for': `198.51.100.${i + 1}`,
      })
      expect(r.status).toBe(200)
      browsers.push(browser)
    }
    const signedInNow = await Promise.all(
      browsers.map(async (b) => (await b.call('GET', '/console/api/workspaces')).status),
    )
    // the sign-up's session and the first four sign-ins' are ended; the 20 newest go on
    expect(signedInNow.slice(0, 5).every((s) => s === 401)).toBe(true)
    expect(signedInNow.slice(5).every((s) => s === 200)).toBe(true)
  }, 120_000)

  it('projects, environments and keys: parallel creates get exactly the places the plan leaves', async () => {
    const { me, workspaceId } = await signedIn()
    await t!.runtime.store.updateWorkspace(workspaceId, {
      overrides: { max_projects: 3, max_environments: 4, max_keys: 5 },
    })
    const base = `/console/api/workspaces/${workspaceId}`
    // a workspace made in the console starts with a project and its environment (issue 28): one place each
    const projects = await burst(8, (i) => me.call('POST', `${base}/projects`, { name: `p${i}` }))
    expect(projects.ok, String(projects.statuses)).toBe(3 - 1)
    for (const e of projects.refused)
      expect(e).toMatchObject({ code: 'ERR_CONFLICT', details: { limit: 'max_projects', max: 3 } })
    const project = (await me.call('GET', `${base}/projects`)).json<{ data: { data: { id: string }[] } }>()
      .data.data[0]!.id
    const envs = await burst(8, (i) =>
      me.call('POST', `${base}/projects/${project}/environments`, { name: `e${i}`, mode: 'test' }),
    )
    expect(envs.ok, String(envs.statuses)).toBe(4 - 1)
    for (const e of envs.refused)
      expect(e).toMatchObject({ code: 'ERR_CONFLICT', details: { limit: 'max_environments', max: 4 } })
    const environment = (await me.call('GET', `${base}/projects/${project}/environments`)).json<{
      data: { data: { id: string }[] }
    }>().data.data[0]!.id
    const keys = await burst(9, () => me.call('POST', `${base}/keys`, { environment_id: environment }))
    expect(keys.ok, String(keys.statuses)).toBe(5)
    for (const e of keys.refused)
      expect(e).toMatchObject({ code: 'ERR_CONFLICT', details: { limit: 'max_keys', max: 5 } })
    expect(await t!.runtime.store.listKeys(workspaceId)).toHaveLength(5)
    // rotations make keys too: parallel rotations of a full workspace's keys are all refused
    const listed = (await me.call('GET', `${base}/keys`)).json<{ data: { data: { id: string }[] } }>().data
      .data
    const rotations = await burst(listed.length, (i) =>
      me.call('POST', `${base}/keys/${listed[i]!.id}/rotate`, { grace_seconds: 60 }),
    )
    expect(rotations.ok).toBe(0)
    expect(await t!.runtime.store.listKeys(workspaceId)).toHaveLength(5)
  })
}

describe('console caps under parallel creates, embedded store', () => {
  consoleCapsSuite(() => ({}))
})

describeRedis('console caps under parallel creates, Redis', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedis()
  })
  afterAll(() => server?.stop())
  consoleCapsSuite(() => ({ REDIS_URL: server.url }))
})
