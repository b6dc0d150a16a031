import { createHash } from 'node:crypto'
import http2 from 'node:http2'
import { expect, it } from 'vitest'
import { buildApp } from '../../../src/http/app.ts'
import type { Store } from '../../../src/store/types.ts'
import { TlsConsole } from '../../helpers/console-tls.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { h1Request, type RawResponse } from '../../helpers/tls-client.ts'
import { idempotencyApps } from './idempotency-apps.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

type Envelope = {
  data: { id: string; key?: string }
  error: { code: string; details: Record<string, unknown> }
}

export interface BoundsSuiteOptions {
  env: () => Record<string, string>
  // what the scope's kept answers weigh in the store, for the store-level check (Redis only)
  keptBytes?: (app: TestApp) => Promise<number[]>
}

// Idempotency-Key, issue 27 and issue 29 item 1, over real sockets: an answer is kept only once the create
// has started executing (Stripe's rule); what is kept is bounded per answer and per scope; a client that
// goes away does not free a key whose create is running; a replay is charged and limited like any request.
export function idempotencyBoundsSuite({ env, keptBytes }: BoundsSuiteOptions): void {
  const { start: startApps, closeAfter } = idempotencyApps<Envelope>(env, { unthrottled: true })

  // the gateway (TLS) and its admin listener; `wrap`: the admin routes run on this store instead
  async function start(extra: Record<string, string> = {}, wrap?: (store: Store) => Store) {
    const { t, admin } = await startApps(extra, wrap)
    const submit = (body: unknown, key?: string, apiKey = t.key): Promise<RawResponse> =>
      h1Request(t.url, {
        method: 'POST',
        path: '/v1/jobs',
        ca: t.tls!.cert,
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          ...(key === undefined ? {} : { 'idempotency-key': key }),
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      })
    return { t, admin, submit }
  }

  const job = (input: string) => ({ operation: 'hash', params: { algorithm: 'sha256', input } })
  const jobId = (r: RawResponse) => r.json<Envelope>().data.id

  it("a refusal found by the create before it ran (a job's params) is not kept: the key runs the corrected request", async () => {
    const { submit } = await start()
    // the handler reads and validates the job: a 400 from there started nothing
    const bad = await submit(
      { operation: 'hash', params: { algorithm: 'sha256', input: 'x', colour: 1 } },
      'k-1',
    )
    expect(bad.status).toBe(400)
    const unknownAlgorithm = await submit(
      { operation: 'hash', params: { algorithm: 'nope', input: 'x' } },
      'k-1',
    )
    expect(unknownAlgorithm.status).toBe(400)
    const good = await submit(job('x'), 'k-1')
    expect(good.status).toBe(202)
    expect(good.headers['idempotent-replayed']).toBeUndefined()
    const again = await submit(job('x'), 'k-1')
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(jobId(again)).toBe(jobId(good))
  })

  it("the issue's attack: a 4 MB unknown field name gets a small 400, not kept; nothing large is kept", async () => {
    const { t, submit } = await start()
    const name = 'A'.repeat(4_000_000)
    const body = `{"operation":"hash","params":{"algorithm":"sha256","input":"x",${JSON.stringify(name)}:1}}`
    const refused = await submit(body, 'attack-1')
    expect(refused.status).toBe(400)
    expect(refused.body.length).toBeLessThan(2_048)
    const retried = await submit(body, 'attack-1')
    expect(retried.status).toBe(400)
    expect(retried.headers['idempotent-replayed']).toBeUndefined()
    expect((await submit(job('y'), 'attack-1')).status).toBe(202)
    if (keptBytes) for (const bytes of await keptBytes(t)) expect(bytes).toBeLessThan(4_096)
  })

  it('a 5xx is not kept: the key stays free and a retry creates', async () => {
    let failures = 1
    const flaky = (store: Store): Store =>
      new Proxy(store, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver)
          if (typeof value !== 'function') return value
          if (prop !== 'createWorkspace') return value.bind(target)
          return async (...args: unknown[]) => {
            if (failures-- > 0) throw new Error('the store failed')
            return value.apply(target, args)
          }
        },
      })
    const { t, admin } = await start({}, flaky)
    const before = (await t.runtime.store.listWorkspaces()).length
    const failed = await admin('/admin/workspaces', { name: 'a' }, 'five-1')
    expect(failed.status).toBe(500)
    const retried = await admin('/admin/workspaces', { name: 'a' }, 'five-1')
    expect(retried.status).toBe(200)
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
    expect(
      (await admin('/admin/workspaces', { name: 'a' }, 'five-1')).headers.get('idempotent-replayed'),
    ).toBe('true')
    expect((await t.runtime.store.listWorkspaces()).length).toBe(before + 1)
  })

  it('refused before the create ran (429, a key out of scope): the key is not taken', async () => {
    const { t, submit } = await start()
    await t.runtime.store.updateWorkspace(t.workspaceId, { overrides: { key_rate_per_second: 1 } })
    expect((await submit(job('first'))).status).toBe(202)
    const limited = await submit(job('a'), 'limited-1')
    expect(limited.status).toBe(429)
    const scoped = await t.newKey({ families: ['hash'] })
    expect((await submit(job('a'), 'limited-1', scoped.key)).status).toBe(403)
    await sleep(1_100)
    const ran = await submit(job('a'), 'limited-1')
    expect(ran.status).toBe(202)
    expect(ran.headers['idempotent-replayed']).toBeUndefined()
  })

  it('a replay is charged and limited like any request: it counts in usage, and gets 429 past the rate or the quota', async () => {
    const { t, submit } = await start()
    const requests = async () => (await t.runtime.store.usage(t.workspaceId)).workspace.requests
    const first = await submit(job('r'), 'replay-1')
    expect(first.status).toBe(202)
    const counted = await requests()
    const replayed = await submit(job('r'), 'replay-1')
    expect(replayed.headers['idempotent-replayed']).toBe('true')
    expect(replayed.headers.ratelimit).toBeDefined()
    expect(await requests()).toBe(counted + 1)
    // past the per-second cap: refused, not replayed
    await t.runtime.store.updateWorkspace(t.workspaceId, { overrides: { key_rate_per_second: 1 } })
    await sleep(1_100)
    expect((await submit(job('r'), 'replay-1')).headers['idempotent-replayed']).toBe('true')
    const overRate = await submit(job('r'), 'replay-1')
    expect(overRate.status).toBe(429)
    expect(overRate.json<Envelope>().error.code).toBe('ERR_RATE_LIMITED')
    // the month's quota spent: refused, not replayed
    await sleep(1_100)
    await t.runtime.store.updateWorkspace(t.workspaceId, { overrides: { monthly_quota: await requests() } })
    const overQuota = await submit(job('r'), 'replay-1')
    expect(overQuota.status).toBe(429)
    expect(overQuota.json<Envelope>().error.code).toBe('ERR_QUOTA_EXCEEDED')
  })

  it('a client that goes away mid-create (HTTP/2 stream reset) does not free the key: the create ends, is kept, and never runs twice', async () => {
    // the console's creates, on a store whose workspace create waits for the test once armed
    let armed = false
    let release!: () => void
    let entered!: () => void
    const gate = new Promise<void>((r) => {
      release = r
    })
    const reached = new Promise<void>((r) => {
      entered = r
    })
    const t = await startTestApp({ tls: true, env: env() })
    closeAfter.testApp(t)
    const held = new Proxy(t.runtime.store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver)
        if (typeof value !== 'function') return value
        if (prop !== 'createWorkspace') return value.bind(target)
        return async (...args: unknown[]) => {
          if (armed) {
            entered()
            await gate
          }
          return value.apply(target, args)
        }
      },
    }) as Store
    const app = await buildApp({ ...t.runtime, store: held }, { tls: t.tls })
    closeAfter.app(app)
    await app.listen({ port: 0, host: '127.0.0.1' })
    const url = `https://127.0.0.1:${(app.server.address() as { port: number }).port}`
    const me = new TlsConsole(url, t.tls!.cert)
    const email = `gone-${Date.now()}@example.com`
    await me.signUp(email)
    const user = (await t.runtime.accounts.findUserByEmail(email))!
    const mine = async () => (await t.runtime.accounts.listMemberships(user.id)).length
    armed = true
    // the first request, over HTTP/2, whose client resets its stream once the create has begun
    const session = http2.connect(url, { ca: t.tls!.cert })
    session.on('error', () => {})
    const stream = session.request({
      ':method': 'POST',
      ':path': '/console/api/workspaces',
      origin: url,
      cookie: me.cookie!,
      'x-csrf-token': me.csrf!,
      'content-type': 'application/json',
      'idempotency-key': 'gone-1',
    })
    stream.on('error', () => {})
    stream.end(JSON.stringify({ name: 'left' }))
    await reached
    stream.close(http2.constants.NGHTTP2_CANCEL)
    await sleep(300)
    // the create is still running: a retry must be told so, not run it again (it would wait on the gate)
    const retry = me.call(
      'POST',
      '/console/api/workspaces',
      { name: 'left' },
      { 'idempotency-key': 'gone-1' },
    )
    const during = await Promise.race([retry, sleep(3_000).then(() => undefined)])
    // (let a retry that ran the create again finish, so that the app can close)
    if (during === undefined) release()
    expect(during?.status, 'the retry ran the create again').toBe(409)
    expect(during?.json<Envelope>().error.code).toBe('ERR_IDEMPOTENCY_IN_PROGRESS')
    release()
    let after = await me.call(
      'POST',
      '/console/api/workspaces',
      { name: 'left' },
      { 'idempotency-key': 'gone-1' },
    )
    for (let i = 0; i < 50 && after.status === 409; i++) {
      await sleep(100)
      after = await me.call(
        'POST',
        '/console/api/workspaces',
        { name: 'left' },
        { 'idempotency-key': 'gone-1' },
      )
    }
    session.close()
    expect(after.status).toBe(200)
    expect(after.headers['idempotent-replayed']).toBe('true')
    // the sign-up's workspace and this one: created once
    expect(await mine()).toBe(2)
  })

  it('an answer over IDEMPOTENCY_MAX_ANSWER_BYTES is kept as its digest: its replay says so, and creates nothing', async () => {
    const { t, admin, submit } = await start({ IDEMPOTENCY_MAX_ANSWER_BYTES: '100' })
    const keys = async () => (await t.runtime.store.listKeys(t.workspaceId)).length
    const before = await keys()
    // a key create answers ~140 bytes: its id, the plaintext key, its prefix
    const first = await admin('/admin/keys', { workspace_id: t.workspaceId, name: 'big' }, 'big-1')
    expect(first.status).toBe(200)
    expect(Buffer.byteLength(first.text)).toBeGreaterThan(100)
    const again = await admin('/admin/keys', { workspace_id: t.workspaceId, name: 'big' }, 'big-1')
    expect(again.status).toBe(409)
    expect(again.headers.get('idempotent-replayed')).toBeNull()
    expect(again.json.error).toMatchObject({
      code: 'ERR_IDEMPOTENCY_NOT_REPLAYABLE',
      details: {
        idempotency_key: 'big-1',
        status: 200,
        bytes: Buffer.byteLength(first.text),
        sha256: createHash('sha256').update(first.text).digest('hex'),
      },
    })
    expect(await keys()).toBe(before + 1)
    // a small answer (a job's, ~70 bytes) is still replayed whole
    const small = await submit(job('s'), 'small-1')
    expect(small.body.length).toBeLessThanOrEqual(100)
    const replayed = await submit(job('s'), 'small-1')
    expect(replayed.headers['idempotent-replayed']).toBe('true')
    expect(replayed.body.toString()).toBe(small.body.toString())
  })

  it('an answer of exactly IDEMPOTENCY_MAX_ANSWER_BYTES is kept whole; one byte more, as its digest', async () => {
    // a job's answer has one size for one shape of job (ids and times of fixed length): measured first
    const probe = await (await start()).submit(job('p'), 'probe')
    const bytes = probe.body.length
    for (const [bound, whole] of [
      [bytes, true],
      [bytes - 1, false],
    ] as const) {
      const { submit } = await start({ IDEMPOTENCY_MAX_ANSWER_BYTES: String(bound) })
      const first = await submit(job('p'), 'at-the-bound')
      expect(first.status).toBe(202)
      expect(first.body.length).toBe(bytes)
      const again = await submit(job('p'), 'at-the-bound')
      if (whole) {
        expect(again.headers['idempotent-replayed']).toBe('true')
        expect(again.body.toString()).toBe(first.body.toString())
      } else {
        expect(again.status).toBe(409)
        expect(again.json<Envelope>().error).toMatchObject({
          code: 'ERR_IDEMPOTENCY_NOT_REPLAYABLE',
          details: { bytes },
        })
      }
    }
  })

  it('each scope keeps at most IDEMPOTENCY_MAX_SCOPE_BYTES of answers, oldest dropped first; other scopes keep theirs', async () => {
    const bound = 6_000
    const { t, submit } = await start({ IDEMPOTENCY_MAX_SCOPE_BYTES: String(bound) })
    const other = await t.newWorkspace()
    const theirs = await submit(job('theirs'), 'scope-0', other.key)
    const ids: string[] = []
    for (let i = 0; i < 40; i++) ids.push(jobId(await submit(job(`mine-${i}`), `scope-${i}`)))
    // the newest are replayed
    const last = await submit(job('mine-39'), 'scope-39')
    expect(last.headers['idempotent-replayed']).toBe('true')
    expect(jobId(last)).toBe(ids[39])
    // the oldest were dropped: their key is free again (the create runs anew)
    const oldest = await submit(job('mine-0'), 'scope-0')
    expect(oldest.headers['idempotent-replayed']).toBeUndefined()
    expect(jobId(oldest)).not.toBe(ids[0])
    // the other workspace's answer, kept first of all, is still there
    const stillTheirs = await submit(job('theirs'), 'scope-0', other.key)
    expect(stillTheirs.headers['idempotent-replayed']).toBe('true')
    expect(jobId(stillTheirs)).toBe(jobId(theirs))
    if (keptBytes) for (const bytes of await keptBytes(t)) expect(bytes).toBeLessThanOrEqual(bound)
  })
}
