import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../../src/config.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { h1Request, h2Request } from '../../helpers/tls-client.ts'

// A key allowed only from 10.1.2.3, asked over a real TLS socket from 127.0.0.1 (the "proxy") with
// X-Forwarded-For. Only the hops TRUST_PROXY names are believed: a client's own leftmost entry never is.
describe('TRUST_PROXY decides which X-Forwarded-For hops are believed', () => {
  let t: TestApp | undefined
  afterEach(async () => {
    await t?.close()
    t = undefined
  })

  async function call(trust: string, forwardedFor: string | undefined) {
    t ??= await startTestApp({ listen: true, env: { TRUST_PROXY: trust } })
    const { key } = await t.newKey({ allowed_cidrs: ['10.1.2.3/32'] })
    const request = {
      method: 'POST',
      path: '/v1/hash/sha256',
      ca: t.tls!.cert,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
      },
      body: JSON.stringify({ input: 'x' }),
    }
    const [a, b] = [await h1Request(t.url, request), await h2Request(t.url, request)]
    expect(b.status, 'HTTP/2 agrees with HTTP/1.1').toBe(a.status)
    return a
  }

  it('TRUST_PROXY=1: a spoofed leftmost entry does not pass the allowlist; the proxy-added one does', async () => {
    const spoofed = await call('1', '10.1.2.3, 1.2.3.4')
    expect(spoofed.status).toBe(403)
    expect(spoofed.json<{ error: { code: string } }>().error.code).toBe('ERR_KEY_SCOPE')
    expect((await call('1', '1.2.3.4, 10.1.2.3')).status).toBe(200)
    expect((await call('1', '10.1.2.3')).status).toBe(200)
  })

  it('a list of proxy addresses: only hops those proxies added are believed', async () => {
    expect((await call('127.0.0.1/32,::1', '10.1.2.3, 1.2.3.4')).status).toBe(403)
    expect((await call('127.0.0.1/32,::1', '10.1.2.3')).status).toBe(200)
  })

  it('unset: X-Forwarded-For is ignored (the socket address, 127.0.0.1, is not allowed)', async () => {
    expect((await call('false', '10.1.2.3')).status).toBe(403)
  })

  it('trusting every hop is refused at boot, with a message saying what to set instead', () => {
    for (const v of ['true', 'yes', '*', 'TRUE']) {
      expect(() => loadConfig({ TRUST_PROXY: v }), v).toThrow(ConfigError)
      expect(() => loadConfig({ TRUST_PROXY: v }), v).toThrow(/trust every hop.*number of proxies/)
    }
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/99' })).toThrow(/hop count or a comma list/)
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2)
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.168.1.1',
    ])
    expect(loadConfig({}).trustProxy).toBe(false)
    expect(loadConfig({ TRUST_PROXY: 'no' }).trustProxy).toBe(false)
  })
})
