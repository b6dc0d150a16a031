import http2 from 'node:http2'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/harness.ts'
import { openRaw } from '../helpers/raw-http1.ts'

const GET_HEALTH = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n'
const GET_METRICS = 'GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'

async function listening(env: Record<string, string>) {
  const t = await startTestApp({ listen: true, env })
  await t.admin.listen({ port: 0, host: '127.0.0.1' })
  const port = (t.app.server.address() as { port: number }).port
  const adminPort = (t.admin.server.address() as { port: number }).port
  return { t, port, adminPort, ca: t.tls!.cert }
}

// An HTTP/2 session and when it was closed (GOAWAY or socket end), in ms since it opened.
async function h2Session(url: string, ca: string) {
  const opened = Date.now()
  const session = http2.connect(url, { ca })
  session.on('error', () => {})
  let closedAt: number | undefined
  const closed = new Promise<number>((resolve) => {
    const mark = () => {
      closedAt ??= Date.now() - opened
      resolve(closedAt)
    }
    session.once('goaway', mark)
    session.once('close', mark)
  })
  const get = () =>
    new Promise<number>((resolve, reject) => {
      const stream = session.request({ ':path': '/healthz' })
      stream.on('response', (h) => resolve(Number(h[':status'])))
      stream.on('error', reject)
      stream.resume()
    })
  return { session, closed, closedAfter: () => closedAt, get }
}

// Idle connections outlive a load balancer's idle timeout (60 s is the common default): the balancer,
// not the gateway, closes them, so it never reuses one the gateway has just closed.
describe('keep-alive fit for a load balancer', () => {
  let t: TestApp | undefined
  afterEach(async () => {
    await t?.close()
    t = undefined
  })

  it('idle past Node’s old 5 s default (and past the headers and request timeouts), connections are reused', async () => {
    // a short request timeout (so a 1.5 s headers timeout): in Node 24 neither applies to an idle connection
    const s = await listening({ REQUEST_TIMEOUT_MS: '1500' })
    t = s.t
    const api = await openRaw({ port: s.port, ca: s.ca })
    const admin = await openRaw({ port: s.adminPort })
    const h2 = await h2Session(t.url, s.ca)
    const first = await api.request(GET_HEALTH)
    expect(first.status).toBe(200)
    expect(first.headers['keep-alive']).toBe('timeout=75')
    expect((await admin.request(GET_METRICS)).headers['keep-alive']).toBe('timeout=75')
    expect(await h2.get()).toBe(200)

    await sleep(6_500)
    expect(api.closedAfter()).toBeUndefined()
    expect(admin.closedAfter()).toBeUndefined()
    expect(h2.closedAfter()).toBeUndefined()
    expect((await api.request(GET_HEALTH)).status).toBe(200)
    expect((await admin.request(GET_METRICS)).status).toBe(200)
    expect(await h2.get()).toBe(200)
    api.socket.destroy()
    admin.socket.destroy()
    h2.session.destroy()
  }, 20_000)

  it('with a small KEEP_ALIVE_TIMEOUT_MS an idle connection is closed after it, on both listeners and HTTP/2', async () => {
    const s = await listening({ KEEP_ALIVE_TIMEOUT_MS: '1000' })
    t = s.t
    const api = await openRaw({ port: s.port, ca: s.ca })
    const admin = await openRaw({ port: s.adminPort })
    const h2 = await h2Session(t.url, s.ca)
    expect((await api.request(GET_HEALTH)).headers['keep-alive']).toBe('timeout=1')
    expect((await admin.request(GET_METRICS)).status).toBe(200)
    expect(await h2.get()).toBe(200)
    // Node closes an HTTP/1.1 connection keepAliveTimeout + 1 s (its keepAliveTimeoutBuffer) after the
    // last answer; an HTTP/2 session gets GOAWAY after keepAliveTimeout without a frame
    // (measured from the connection's opening, its requests a few ms later: 2,020-2,060 and 1,075 ms here).
    // Within a second of that: a timeout of twice the setting would be past it
    const [apiClosed, adminClosed, h2Closed] = await Promise.all([api.closed, admin.closed, h2.closed])
    for (const ms of [apiClosed, adminClosed]) {
      expect(ms).toBeGreaterThanOrEqual(1_900)
      expect(ms).toBeLessThan(3_000)
    }
    expect(h2Closed).toBeGreaterThanOrEqual(900)
    expect(h2Closed).toBeLessThan(2_000)
    h2.session.destroy()
  }, 20_000)

  it('the admin listener has the request deadline too: a body that never finishes gets 408 and the connection closes', async () => {
    // Fastify's own default is no request timeout at all
    const s = await listening({ REQUEST_TIMEOUT_MS: '1000' })
    t = s.t
    const admin = await openRaw({ port: s.adminPort })
    const res = await admin.request(
      `POST /admin/workspaces HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
    )
    expect(res.status).toBe(408)
    expect(JSON.parse(res.body).error.code).toBe('ERR_REQUEST_TIMEOUT')
    expect(await admin.closed).toBeLessThan(5_000)
  }, 20_000)
})
