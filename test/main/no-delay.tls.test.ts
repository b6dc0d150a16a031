import http2 from 'node:http2'
import type { Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../helpers/harness.ts'
import { openRaw } from '../helpers/raw-http1.ts'

// Whether Nagle's algorithm is off on an accepted connection: Node keeps what it last set with
// setNoDelay (or the server's noDelay option, applied at accept) on the socket under this symbol.
function nagleOff(socket: Socket): boolean {
  const flag = Object.getOwnPropertySymbols(socket).find((s) => s.description === 'kSetNoDelay')
  if (!flag) throw new Error('this Node keeps no kSetNoDelay on its sockets: find another way to read it')
  return (socket as unknown as Record<symbol, boolean>)[flag] === true
}

// With Nagle on, an answer's last partial segment waits for the client's delayed ACK (~40 ms on Linux):
// Node's HTTP/2 server (which also serves HTTP/1.1 here) leaves it on unless told, its HTTP server does not.
describe('Nagle off on every accepted connection', () => {
  let t: TestApp | undefined
  afterEach(async () => {
    await t?.close()
    t = undefined
  })

  it('the API listener (HTTP/1.1 and HTTP/2 over TLS) and the admin listener', async () => {
    t = await startTestApp({ listen: true })
    await t.admin.listen({ port: 0, host: '127.0.0.1' })
    const accepted: Socket[] = []
    const adminAccepted: Socket[] = []
    t.app.server.on('connection', (s: Socket) => accepted.push(s))
    t.admin.server.on('connection', (s: Socket) => adminAccepted.push(s))
    const port = (t.app.server.address() as { port: number }).port
    const adminPort = (t.admin.server.address() as { port: number }).port

    const api = await openRaw({ port, ca: t.tls!.cert })
    expect((await api.request('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n')).status).toBe(200)
    const session = http2.connect(t.url, { ca: t.tls!.cert })
    const status = await new Promise<number>((resolve, reject) => {
      const stream = session.request({ ':path': '/healthz' })
      stream.on('response', (h) => resolve(Number(h[':status'])))
      stream.on('error', reject)
      stream.resume()
    })
    expect(status).toBe(200)
    const admin = await openRaw({ port: adminPort })
    expect((await admin.request('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).status).toBe(200)

    expect(accepted).toHaveLength(2)
    expect(adminAccepted).toHaveLength(1)
    for (const socket of [...accepted, ...adminAccepted]) expect(nagleOff(socket)).toBe(true)
    api.socket.destroy()
    admin.socket.destroy()
    session.destroy()
  }, 20_000)
})
