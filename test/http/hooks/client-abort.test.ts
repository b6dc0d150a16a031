import http2 from 'node:http2'
import { Writable } from 'node:stream'
import tls from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { h1Request, h2Request } from '../../helpers/tls-client.ts'

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 20))
  }
}

// Transport edges of the error path, on a real TLS listener: a client that hangs up mid-body is an abort
// (debug), not a fault (ERR_INTERNAL with a stack); a refusal that closes an HTTP/1.1 connection does
// not send HTTP/2 a Connection header (which Node drops with a warning) but resets the stream.
describe('client aborts and connection-closing refusals', () => {
  const lines: Record<string, unknown>[] = []
  const warnings: string[] = []
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`)
  let t: TestApp
  let headers: Record<string, string>
  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, callback) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l))
        callback()
      },
    })
    t = await startTestApp({ listen: true, tls: true, logStream: stream, env: { LOG_LEVEL: 'debug' } })
    headers = { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' }
    process.on('warning', onWarning)
  })
  afterAll(async () => {
    process.off('warning', onWarning)
    await t?.close()
  })

  const aborts = () => lines.filter((l) => l.msg === 'request aborted by the client')
  const faults = () => lines.filter((l) => (l.level as number) >= 50)

  it('HTTP/1.1: a connection closed mid-body is logged once at debug, with no error line', async () => {
    lines.length = 0
    const u = new URL(t.url)
    const socket = tls.connect({
      host: u.hostname,
      port: Number(u.port),
      ca: t.tls!.cert,
      servername: 'localhost',
      ALPNProtocols: ['http/1.1'],
    })
    await new Promise((r) => socket.once('secureConnect', r))
    socket.write(
      `POST /v1/json/format HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${t.key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"input":"',
    )
    await new Promise((r) => setTimeout(r, 200))
    socket.destroy()
    await until(() => aborts().length === 1)
    expect(aborts()[0]).toMatchObject({ level: 20, code: 'ECONNRESET' })
    expect(aborts()[0]).not.toHaveProperty('err')
    expect(faults()).toEqual([])
  })

  it('HTTP/2: a stream reset mid-body is logged at debug, with no error line', async () => {
    lines.length = 0
    const session = http2.connect(t.url, { ca: t.tls!.cert })
    // a route whose body goes through the JSON parser (streaming routes read the body themselves)
    const stream = session.request({
      ':method': 'POST',
      ':path': '/v1/jwt/decode',
      ...headers,
      'content-length': '1000',
    })
    stream.on('error', () => {})
    stream.write('{"token":"')
    await new Promise((r) => setTimeout(r, 200))
    stream.close(http2.constants.NGHTTP2_CANCEL)
    await until(() => aborts().length === 1)
    session.close()
    expect(aborts()[0]!.level).toBe(20)
    expect(faults()).toEqual([])
    // the truncated body was not run as if it were whole (Node ends an HTTP/2 body on reset)
    const answered = lines.filter((l) => l.msg === 'request completed')
    expect(answered.filter((l) => (l.res as { statusCode: number }).statusCode !== 400)).toEqual([])
  })

  it('HTTP/2: a refusal with the body unread sends no Connection header, no warning, and resets the stream', async () => {
    warnings.length = 0
    const declared = { ...headers, 'content-length': String(100 * 1024 * 1024) }
    for (let i = 0; i < 3; i++) {
      const res = await h2Request(t.url, {
        method: 'POST',
        path: '/v1/hash/sha256',
        headers: declared,
        body: Buffer.alloc(1 << 20),
        ca: t.tls!.cert,
      })
      expect(res.status).toBe(413)
      expect(res.headers.connection).toBeUndefined()
      expect(res.json()).toMatchObject({ error: { code: 'ERR_PAYLOAD_TOO_LARGE' } })
    }
    const invalid = await h2Request(t.url, {
      method: 'POST',
      path: '/v1/hash/sha256',
      headers,
      body: '{"input":',
      ca: t.tls!.cert,
    })
    expect(invalid.status).toBe(400)
    await new Promise((r) => setImmediate(r))
    expect(warnings).toEqual([])
  })

  it('HTTP/1.1: the same refusal still closes the connection', async () => {
    const res = await h1Request(t.url, {
      method: 'POST',
      path: '/v1/hash/sha256',
      headers,
      body: '{"input":',
      ca: t.tls!.cert,
    })
    expect(res.status).toBe(400)
    expect(res.headers.connection).toBe('close')
  })
})
