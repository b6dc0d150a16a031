import { execFile, spawnSync } from 'node:child_process'
import http2 from 'node:http2'
import { connect, type Socket } from 'node:net'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../helpers/harness.ts'
import { h1Request } from '../helpers/tls-client.ts'

const run = promisify(execFile)
const haveCurl = spawnSync('curl', ['--version']).status === 0
if (!haveCurl && process.env.CI === 'true')
  throw new Error('CI=true but curl is missing (apt-get install curl)')

// everything a plain TCP client gets back until the server closes (or `ms` pass)
function plain(port: number, bytes: string, ms = 5_000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ host: '127.0.0.1', port })
    let text = ''
    const timer = setTimeout(() => {
      socket.destroy()
      resolve({ text, closed: false })
    }, ms)
    socket.on('data', (c: Buffer) => {
      text += c.toString('latin1')
    })
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ text, closed: true })
    })
    socket.on('error', reject)
    if (bytes) socket.write(bytes)
  })
}

// Issue 43: GET / and /favicon.ico were JSON 404s, and plain HTTP to the HTTPS port got an empty reply.
describe('what a person who opens the address finds', () => {
  let t: TestApp
  let port: number
  beforeAll(async () => {
    // REQUEST_TIMEOUT_MS bounds the headers' deadline (1 s here), which a silent connection gets too
    t = await startTestApp({ listen: true, env: { REQUEST_TIMEOUT_MS: '1000' } })
    port = Number(new URL(t.url).port)
  })
  afterAll(() => t.close())

  it('GET / points at the reference and the console: a page to a browser, JSON to a program', async () => {
    const page = await h1Request(t.url, {
      path: '/',
      headers: { accept: 'text/html,*/*;q=0.8' },
      ca: t.tls!.cert,
    })
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(page.headers['content-security-policy']).toBe("default-src 'none'; img-src 'self'")
    const html = page.body.toString('utf8')
    expect(html).toContain('<a href="/docs">API reference</a>')
    expect(html).toContain('<a href="/console">Console</a>')
    expect(page.headers['request-id']).toBeDefined()

    const json = await h1Request(t.url, { path: '/', ca: t.tls!.cert })
    expect(json.status).toBe(200)
    expect(json.headers.vary).toContain('Accept')
    expect(json.json()).toEqual({
      ok: true,
      data: {
        name: 'Anvil',
        version: expect.any(String),
        docs: '/docs',
        console: '/console',
        openapi: '/v1/openapi.json',
        health: '/healthz',
      },
    })
  })

  it('serves a site icon: an ICO holding a 32 × 32 PNG', async () => {
    const r = await h1Request(t.url, { path: '/favicon.ico', ca: t.tls!.cert })
    expect(r.status).toBe(200)
    expect(r.headers['content-type']).toBe('image/x-icon')
    const ico = r.body
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4)]).toEqual([0, 1, 1])
    expect([ico[6], ico[7]]).toEqual([32, 32])
    const png = ico.subarray(ico.readUInt32LE(18), ico.readUInt32LE(18) + ico.readUInt32LE(14))
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([32, 32])
    // decoded by a real browser in test/http/openapi/docs-page.test.ts
  })

  it('plain HTTP to the HTTPS port is told the https URL to use, in plain HTTP, and closed', async () => {
    const { text, closed } = await plain(
      port,
      `GET /v1/hash/algorithms?x=1 HTTP/1.1\r\nHost: localhost:${port}\r\nUser-Agent: test\r\n\r\n`,
    )
    expect(closed).toBe(true)
    const [head, body] = text.split('\r\n\r\n')
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
    expect(head).toMatch(/\r\nConnection: close(\r\n|$)/)
    expect(head).toMatch(/\r\nRequest-Id: req_\w+/)
    const url = `https://localhost:${port}/v1/hash/algorithms?x=1`
    expect(JSON.parse(body!)).toEqual({
      error: {
        type: 'invalid_request',
        code: 'ERR_HTTPS_REQUIRED',
        message: `This port speaks HTTPS only: use ${url}`,
        details: { https_url: url },
      },
    })
    // a Host that is not plain is not repeated
    const odd = await plain(port, 'POST / HTTP/1.1\r\nHost: <script>\r\n\r\n')
    expect(odd.text).toContain('use https:// with the same host and port.')
    expect(odd.text).not.toContain('<script>')
  })

  it.runIf(haveCurl)('curl http:// says so', async () => {
    const r = await run('curl', ['-s', `http://127.0.0.1:${port}/healthz`]).catch(
      (e: { stdout: string }) => e,
    )
    expect(JSON.parse(r.stdout).error.code).toBe('ERR_HTTPS_REQUIRED')
  })

  it('TLS still works over HTTP/1.1 and HTTP/2, and a silent connection is closed at the headers deadline', async () => {
    expect((await h1Request(t.url, { path: '/healthz', ca: t.tls!.cert })).status).toBe(200)
    const session = http2.connect(t.url, { ca: t.tls!.cert })
    const status = await new Promise<number>((resolve, reject) => {
      const req = session.request({ ':path': '/healthz' })
      let code = 0
      req.on('response', (h) => {
        code = Number(h[':status'])
      })
      req.on('end', () => resolve(code))
      req.on('error', reject)
      req.resume()
      req.end()
    })
    await new Promise<void>((r) => session.close(() => r()))
    expect(status).toBe(200)
    const started = Date.now()
    const silent = await plain(port, '', 10_000)
    expect(silent.closed).toBe(true)
    expect(silent.text).toBe('')
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it('closing the gateway does not wait for a connection that has sent nothing', async () => {
    const other = await startTestApp({ listen: true })
    const otherPort = Number(new URL(other.url).port)
    const socket = connect({ host: '127.0.0.1', port: otherPort })
    await new Promise((r) => socket.once('connect', r))
    const started = Date.now()
    await other.close()
    expect(Date.now() - started).toBeLessThan(5_000)
    socket.destroy()
  })
})
