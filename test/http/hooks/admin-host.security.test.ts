import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../../src/config.ts'
import { hostAllowlist } from '../../../src/lib/host-allowlist.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

// A raw HTTP/1.x request, so the Host header (or its absence) is exactly what is written
function raw(port: number, head: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(`${head}\r\nConnection: close\r\n\r\n`))
    let text = ''
    socket.on('data', (c: Buffer) => {
      text += c.toString()
    })
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0)
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) })
    })
    socket.on('error', reject)
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer')))
  })
}

async function expectForbidden(port: number, head: string): Promise<void> {
  const res = await raw(port, head)
  expect(res.status, head).toBe(403)
  expect(JSON.parse(res.body).error.code, head).toBe('ERR_FORBIDDEN_HOST')
}

describe('the internal listener answers only to the Host names it is configured with', () => {
  let t: TestApp
  let custom: TestApp
  let port: number
  let customPort: number
  const token = (x: TestApp) => `Authorization: Bearer ${x.adminToken}`

  beforeAll(async () => {
    t = await startTestApp()
    await t.admin.listen({ port: 0, host: '127.0.0.1' })
    port = (t.admin.server.address() as { port: number }).port
    custom = await startTestApp({ env: { ADMIN_ALLOWED_HOSTS: 'gateway, metrics.internal:9464,10.0.0.0/8' } })
    await custom.admin.listen({ port: 0, host: '127.0.0.1' })
    customPort = (custom.admin.server.address() as { port: number }).port
  })
  afterAll(async () => {
    await t.close()
    await custom.close()
  })

  it('by default: loopback names, with or without a port', async () => {
    for (const host of ['127.0.0.1', `127.0.0.1:${port}`, 'localhost', `LOCALHOST:${port}`, '[::1]:9464']) {
      expect((await raw(port, `GET /metrics HTTP/1.1\r\nHost: ${host}`)).status, host).toBe(200)
      const admin = await raw(port, `GET /admin/workspaces HTTP/1.1\r\nHost: ${host}\r\n${token(t)}`)
      expect(admin.status, host).toBe(200)
    }
  })

  it('refuses a rebinding name, a look-alike, a missing Host: for metrics and, with the token, the admin API', async () => {
    for (const host of [
      'rebind.attacker.example',
      `attacker.example:${port}`,
      'localhost.attacker.example',
      '127.0.0.2',
      '[::2]',
    ]) {
      await expectForbidden(port, `GET /metrics HTTP/1.1\r\nHost: ${host}`)
      await expectForbidden(port, `GET /admin/workspaces HTTP/1.1\r\nHost: ${host}\r\n${token(t)}`)
      await expectForbidden(port, `POST /%61dmin/keys HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0`)
      await expectForbidden(port, `GET /no-such-route HTTP/1.1\r\nHost: ${host}`)
    }
    // HTTP/1.0 may omit Host: nothing is answered without one
    await expectForbidden(port, 'GET /metrics HTTP/1.0')
  })

  it('ADMIN_ALLOWED_HOSTS: names (any port or one port) and CIDR blocks for scrapes by address', async () => {
    const ok = ['gateway', 'gateway:9464', 'metrics.internal:9464', '10.1.2.3:9464', '10.255.0.1']
    for (const host of ok) {
      expect((await raw(customPort, `GET /metrics HTTP/1.1\r\nHost: ${host}`)).status, host).toBe(200)
    }
    for (const host of [
      'localhost',
      '127.0.0.1',
      'metrics.internal:80',
      'metrics.internal',
      '11.0.0.1',
      'gateway.evil',
    ]) {
      await expectForbidden(customPort, `GET /metrics HTTP/1.1\r\nHost: ${host}`)
    }
  })

  it('defaults include ADMIN_HOST unless it is a wildcard; bad entries fail at boot', () => {
    expect(loadConfig({ ADMIN_HOST: '192.168.5.5' }).adminAllowedHosts).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
      '192.168.5.5',
    ])
    expect(loadConfig({ ADMIN_HOST: '::1' }).adminAllowedHosts).toContain('[::1]')
    expect(loadConfig({ ADMIN_HOST: '0.0.0.0' }).adminAllowedHosts).toEqual([
      'localhost',
      '127.0.0.1',
      '[::1]',
    ])
    for (const bad of ['', ' , ', 'exa mple', '10.0.0.0/99', 'http://x']) {
      expect(() => loadConfig({ ADMIN_ALLOWED_HOSTS: bad }), bad).toThrow(ConfigError)
    }
    expect(() => loadConfig({ ADMIN_ALLOWED_HOSTS: 'x' })).not.toThrow()
    expect(hostAllowlist(['[::1]']).allows('[::1]:1')).toBe(true)
    expect(hostAllowlist(['::/0']).allows('evil.example')).toBe(false)
  })
})
