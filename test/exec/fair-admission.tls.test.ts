import http2 from 'node:http2'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../helpers/harness.ts'

const left = { users: Array.from({ length: 600 }, (_, i) => ({ id: i, name: `user ${i}` })) }
const DIFF = JSON.stringify({ left, right: { users: left.users.slice(3) }, array_key: 'id' })

function post(session: http2.ClientHttp2Session, key: string, body: string, finish: boolean) {
  const stream = session.request({
    ':method': 'POST',
    ':path': '/v1/json/diff',
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    'content-length': String(DIFF.length),
  })
  stream.on('error', () => {})
  if (finish) stream.end(body)
  else stream.write(body)
  return new Promise<{ status: number; timing: string }>((resolve) => {
    let status = 0
    let timing = ''
    stream.on('response', (h) => {
      status = Number(h[':status'])
      timing = String(h['server-timing'] ?? '')
    })
    stream.resume()
    stream.on('close', () => resolve({ status, timing }))
  })
}

// Issue 12, item 10: nine unfinished bodies from one free key held every place of the shared free pool,
// and another workspace's large request got 503. Now one workspace's unfinished bodies hold at most half.
describe('fair pool admission over a real socket', () => {
  let t: TestApp
  const sessions: http2.ClientHttp2Session[] = []
  afterEach(async () => {
    for (const s of sessions.splice(0)) s.destroy()
    await t?.close()
  })

  it("workspace A's trickling bodies cannot keep workspace B off the shared free pool", async () => {
    t = await startTestApp({
      listen: true,
      env: {
        // the free pool of a 2-core machine: 1 thread, 8 queued: 9 places
        POOL_FREE_THREADS: '1',
        POOL_FREE_QUEUE: '8',
        PLANS: JSON.stringify({ free: { key_rate_per_second: 100, workspace_rate_per_second: 100 } }),
      },
    })
    const a = await t.newWorkspace('free')
    const b = await t.newWorkspace('free')
    const admission = t.runtime.pools.pick(a.workspaceId, 'free').admission
    expect(admission.capacity).toBe(9)
    const connect = () => {
      const s = http2.connect(t.url, { ca: t.tls!.cert })
      s.on('error', () => {})
      sessions.push(s)
      return s
    }
    // the pool's thread is up before the test proper (a cold start under load can outlast the queue wait)
    expect((await post(connect(), b.key, DIFF, true)).status).toBe(200)
    const attacker = connect()
    // nine bodies that never finish (a first KiB, then nothing)
    const flood = Array.from({ length: 9 }, () => post(attacker, a.key, DIFF.slice(0, 1024), false))
    await expect.poll(() => admission.reserved + admission.waiting).toBe(9)
    expect(admission.held(a.workspaceId)).toBe(4)
    expect(admission.full()).toBe(false)

    const res = await post(connect(), b.key, DIFF, true)
    expect(res.status).toBe(200)
    expect(res.timing).toContain('dispatch;desc="free"')

    // A's bodies beyond its half waited their turn and were refused; the four it holds still hold
    const refused = await Promise.all(flood.slice(4))
    expect(refused.map((r) => r.status)).toEqual([503, 503, 503, 503, 503])
    expect(admission.held(a.workspaceId)).toBe(4)
    // the client going away gives everything back
    attacker.destroy()
    await Promise.all(flood)
    await expect.poll(() => admission.tenants).toBe(0)
    expect({
      reserved: admission.reserved,
      inFlight: admission.inFlight,
      waiting: admission.waiting,
    }).toEqual({
      reserved: 0,
      inFlight: 0,
      waiting: 0,
    })
  })
})
