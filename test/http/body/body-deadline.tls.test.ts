import http2 from 'node:http2'
import https from 'node:https'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

interface Answer {
  status: number
  headers: http2.IncomingHttpHeaders
  body: string
  // ms from the request's headers to the answer's headers
  after: number
  // the stream's RST_STREAM code once it closed (0: NO_ERROR)
  closed: Promise<number>
}

// One HTTP/2 request on `session` whose body is sent by `send` (which may trickle it and never end it).
function h2Post(
  session: http2.ClientHttp2Session,
  path: string,
  headers: Record<string, string>,
  send: (stream: http2.ClientHttp2Stream) => void,
): Promise<Answer> {
  const sent = Date.now()
  const stream = session.request({ ':method': 'POST', ':path': path, ...headers })
  const closed = new Promise<number>((resolve) => stream.once('close', () => resolve(stream.rstCode ?? -1)))
  send(stream)
  return new Promise((resolve, reject) => {
    let status = 0
    let after = 0
    let responseHeaders: http2.IncomingHttpHeaders = {}
    let body = ''
    stream.on('response', (h) => {
      status = Number(h[':status'])
      responseHeaders = h
      after = Date.now() - sent
    })
    stream.on('data', (c: Buffer) => {
      body += c.toString()
    })
    stream.on('end', () => resolve({ status, headers: responseHeaders, body, after, closed }))
    stream.on('error', (err) =>
      status ? resolve({ status, headers: responseHeaders, body, after, closed }) : reject(err),
    )
  })
}

// A byte every `everyMs` after `head`, until the stream closes: a body that never finishes.
function trickle(head: string, everyMs: number) {
  return (stream: http2.ClientHttp2Stream) => {
    stream.write(head)
    const timer = setInterval(() => {
      if (stream.closed || stream.destroyed) clearInterval(timer)
      else stream.write(' ')
    }, everyMs)
    stream.once('close', () => clearInterval(timer))
  }
}

const left = { users: Array.from({ length: 600 }, (_, i) => ({ id: i, name: `user ${i}` })) }
const DIFF = JSON.stringify({ left, right: { users: left.users.slice(3) }, array_key: 'id' })

// HTTP/2 bodies get the deadline Node gives HTTP/1.1 bodies (REQUEST_TIMEOUT_MS): 408 with the envelope,
// and everything the request held is given back.
describe('HTTP/2 body deadline', () => {
  let t: TestApp
  let session: http2.ClientHttp2Session
  afterEach(async () => {
    session?.destroy()
    await t?.close()
  })

  async function start(env: Record<string, string>) {
    t = await startTestApp({ listen: true, env: { REQUEST_TIMEOUT_MS: '1000', ...env } })
    session = http2.connect(t.url, { ca: t.tls!.cert })
    session.on('error', () => {})
  }
  const json = () => ({ authorization: `Bearer ${t.key}`, 'content-type': 'application/json' })
  function paidAdmission() {
    return t.runtime.pools.pick(t.workspaceId, 'paid').admission
  }

  it('a body trickling a byte every 300 ms is answered 408 at the deadline; the session stays usable', async () => {
    await start({})
    const res = await h2Post(session, '/v1/hash/sha256', json(), trickle('{"input":"', 300))
    expect(res.status).toBe(408)
    expect(res.after).toBeGreaterThanOrEqual(900)
    expect(res.after).toBeLessThan(3_000)
    expect(res.headers['request-id']).toMatch(/^req_/)
    expect(JSON.parse(res.body).error).toMatchObject({ code: 'ERR_REQUEST_TIMEOUT', type: 'invalid_request' })
    // the client is told to stop sending without an error: RST_STREAM(NO_ERROR) after the answer
    expect(await res.closed).toBe(http2.constants.NGHTTP2_NO_ERROR)
    const ok = await h2Post(session, '/v1/hash/sha256', json(), (s) => s.end('{"input":"hi"}'))
    expect(ok.status).toBe(200)
  })

  it('the same for a raw body hashed as it arrives', async () => {
    await start({})
    const res = await h2Post(
      session,
      '/v1/hash/sha256',
      { authorization: `Bearer ${t.key}`, 'content-type': 'application/octet-stream' },
      trickle('abc', 300),
    )
    expect(res.status).toBe(408)
    expect(JSON.parse(res.body).error.code).toBe('ERR_REQUEST_TIMEOUT')
  })

  it('a pool place held by an unfinished body is given back at the deadline', async () => {
    await start({ POOL_PAID_THREADS: '1', POOL_PAID_QUEUE: '1' })
    const admission = paidAdmission()
    const filler = admission.reserve('ws_filler', 0).reservation
    const headers = { ...json(), 'content-length': String(DIFF.length) }
    const pending = h2Post(session, '/v1/json/diff', headers, trickle(DIFF.slice(0, 1000), 300))
    await expect.poll(() => admission.full()).toBe(true)
    const res = await pending
    expect(res.status).toBe(408)
    expect(admission.full()).toBe(false)
    expect(admission.waiting).toBe(0)
    admission.cancel(filler)
    expect(admission.inFlight).toBe(0)
    expect(admission.reserve('ws_other', 0).reservation.state).toBe('reserved')
    expect(admission.tenants).toBe(1)
  })

  it('a body waiting for a place on a full pool is answered 408 (not 503) at the deadline and leaves the line', async () => {
    await start({ POOL_PAID_THREADS: '1', POOL_PAID_QUEUE: '1', POOL_ADMISSION_WAIT_MS: '30000' })
    const admission = paidAdmission()
    const held = [admission.reserve('ws_f1', 0).reservation, admission.reserve('ws_f2', 0).reservation]
    const headers = { ...json(), 'content-length': String(DIFF.length) }
    const pending = h2Post(session, '/v1/json/diff', headers, trickle(DIFF.slice(0, 10), 300))
    await expect.poll(() => admission.waiting).toBe(1)
    const res = await pending
    expect(res.status).toBe(408)
    expect(res.after).toBeLessThan(3_000)
    expect(admission.waiting).toBe(0)
    for (const r of held) admission.cancel(r)
    expect(admission.full()).toBe(false)
  })

  it('the deadline is for the body to arrive: a complete body waiting longer for its place is served', async () => {
    await start({ POOL_PAID_THREADS: '1', POOL_PAID_QUEUE: '1', POOL_ADMISSION_WAIT_MS: '30000' })
    const admission = paidAdmission()
    const held = [admission.reserve('ws_f1', 0).reservation, admission.reserve('ws_f2', 0).reservation]
    const headers = { ...json(), 'content-length': String(DIFF.length) }
    const pending = h2Post(session, '/v1/json/diff', headers, (s) => s.end(DIFF))
    await expect.poll(() => admission.waiting).toBe(1)
    await sleep(1_800)
    for (const r of held) admission.cancel(r)
    const res = await pending
    expect(res.status).toBe(200)
    expect(res.after).toBeGreaterThanOrEqual(1_800)
  })

  it('HTTP/1.1 parity: the unfinished body that held a pool place gets 408 and the place is given back', async () => {
    await start({ POOL_PAID_THREADS: '1', POOL_PAID_QUEUE: '1' })
    const admission = paidAdmission()
    const filler = admission.reserve('ws_filler', 0).reservation
    const status = await new Promise<number>((resolve, reject) => {
      const req = https.request(`${t.url}/v1/json/diff`, {
        method: 'POST',
        ca: t.tls!.cert,
        agent: false,
        headers: { ...json(), 'content-length': String(DIFF.length) },
      })
      req.on('response', (r) => {
        r.resume()
        resolve(r.statusCode ?? 0)
      })
      req.on('error', reject)
      req.write(DIFF.slice(0, 1000))
    })
    expect(status).toBe(408)
    await expect.poll(() => admission.full()).toBe(false)
    admission.cancel(filler)
  })
})
