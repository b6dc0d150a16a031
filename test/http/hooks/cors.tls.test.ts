import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../../src/config.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { h1Request, h2Request, type RawResponse } from '../../helpers/tls-client.ts'

const APP = 'https://app.example.com'
const DEV = 'http://localhost:3000'
const EVIL = 'https://evil.example'

const clients = [
  ['HTTP/1.1', h1Request],
  ['HTTP/2', h2Request],
] as const

const header = (res: RawResponse, name: string) => {
  const v = res.headers[name]
  return Array.isArray(v) ? v.join(', ') : v
}
const list = (res: RawResponse, name: string) => (header(res, name) ?? '').split(/,\s*/)

describe('CORS with CORS_ALLOWED_ORIGINS listing two origins', () => {
  let t: TestApp
  let ca: string
  beforeAll(async () => {
    t = await startTestApp({ listen: true, env: { CORS_ALLOWED_ORIGINS: ` ${APP}, ${DEV} ` } })
    ca = t.tls!.cert
  })
  afterAll(() => t?.close())

  const preflight = (send: typeof h1Request, path: string, origin: string, method = 'POST') =>
    send(t.url, {
      method: 'OPTIONS',
      path,
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
      ca,
    })

  for (const [name, send] of clients) {
    it(`${name}: an allowed origin's preflight is a 204 with the allow headers, before any key check`, async () => {
      const res = await preflight(send, '/v1/hash/sha256', APP)
      expect(res.status).toBe(204)
      expect(res.body.length).toBe(0)
      expect(header(res, 'access-control-allow-origin')).toBe(APP)
      expect(list(res, 'access-control-allow-methods')).toContain('POST')
      expect(list(res, 'access-control-allow-headers')).toEqual(
        expect.arrayContaining([
          'Authorization',
          'Content-Type',
          'Idempotency-Key',
          'Traceparent',
          'Tracestate',
        ]),
      )
      expect(header(res, 'access-control-max-age')).toBe('7200')
      expect(list(res, 'vary')).toContain('Origin')
      expect(res.headers['access-control-allow-credentials']).toBeUndefined()
      expect(header(res, 'request-id')).toBeTruthy()
      // a preflight lists the path's own methods (POST: the path is also /v1/hash/{algorithm})
      const get = await preflight(send, '/v1/hash/algorithms', DEV, 'GET')
      expect(get.status).toBe(204)
      expect(header(get, 'access-control-allow-origin')).toBe(DEV)
      expect(list(get, 'access-control-allow-methods')).toEqual(['GET', 'HEAD', 'POST'])
    })

    it(`${name}: another origin's preflight is a clear 403 without the allow headers, never a 405`, async () => {
      const res = await preflight(send, '/v1/hash/sha256', EVIL)
      expect(res.status).toBe(403)
      expect(res.json()).toEqual({
        error: {
          type: 'permission_error',
          code: 'ERR_CORS_ORIGIN',
          message: `The origin ${EVIL} may not call this API from a browser.`,
          details: { origin: EVIL },
        },
      })
      expect(res.headers['access-control-allow-origin']).toBeUndefined()
      expect(res.headers['access-control-allow-methods']).toBeUndefined()
      expect(list(res, 'vary')).toContain('Origin')
      // an origin is compared exactly: same host on another scheme or port is another origin
      expect((await preflight(send, '/v1/hash/sha256', 'http://app.example.com')).status).toBe(403)
      expect((await preflight(send, '/v1/hash/sha256', 'http://localhost:3001')).status).toBe(403)
    })

    it(`${name}: the console is never offered cross-origin, even to an allowed origin`, async () => {
      const res = await preflight(send, '/console/api/signin', APP)
      expect(res.status).toBe(403)
      expect(res.json<{ error: { code: string } }>().error.code).toBe('ERR_CORS_ORIGIN')
      expect(res.headers['access-control-allow-origin']).toBeUndefined()
      const session = await send(t.url, { path: '/console/api/session', headers: { origin: APP }, ca })
      expect(session.status).toBe(401)
      expect(session.headers['access-control-allow-origin']).toBeUndefined()
      expect(session.headers['access-control-allow-credentials']).toBeUndefined()
    })

    it(`${name}: actual responses carry the origin and expose the rate-limit and id headers, errors included`, async () => {
      const call = (path: string, key: string | undefined, origin = APP, body = '{"input":"abc"}') =>
        send(t.url, {
          method: 'POST',
          path,
          headers: {
            origin,
            'content-type': 'application/json',
            ...(key ? { authorization: `Bearer ${key}` } : {}),
          },
          body,
          ca,
        })
      const ok = await call('/v1/hash/sha256', t.key)
      expect(ok.status).toBe(200)
      expect(header(ok, 'access-control-allow-origin')).toBe(APP)
      expect(list(ok, 'vary')).toContain('Origin')
      expect(list(ok, 'access-control-expose-headers')).toEqual(
        expect.arrayContaining([
          'RateLimit',
          'RateLimit-Policy',
          'Request-Id',
          'Retry-After',
          'Traceresponse',
        ]),
      )
      expect(ok.headers['access-control-allow-credentials']).toBeUndefined()
      for (const [res, status] of [
        [await call('/v1/hash/sha256', undefined), 401],
        [await call('/v1/hash/sha256', t.key, APP, '{"inptu":"x"}'), 400],
        [await call('/v1/no/such/thing', t.key), 404],
        [await send(t.url, { method: 'PUT', path: '/v1/hash/sha256', headers: { origin: APP }, ca }), 405],
      ] as const) {
        expect(res.status).toBe(status)
        expect(header(res, 'access-control-allow-origin')).toBe(APP)
        expect(list(res, 'access-control-expose-headers')).toContain('Request-Id')
      }
      // a page of another origin gets its answer (the server cannot know), but the browser may not read it
      const evil = await call('/v1/hash/sha256', t.key, EVIL)
      expect(evil.headers['access-control-allow-origin']).toBeUndefined()
      expect(list(evil, 'vary')).toContain('Origin')
      // no Origin (curl, servers): the same Vary, so a shared cache never mixes the two
      const plain = await send(t.url, {
        method: 'POST',
        path: '/v1/hash/sha256',
        headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
        body: '{"input":"abc"}',
        ca,
      })
      expect(plain.headers['access-control-allow-origin']).toBeUndefined()
      expect(list(plain, 'vary')).toContain('Origin')
    })

    it(`${name}: OPTIONS without a preflight is a 204 with Allow; an unknown path stays a 404`, async () => {
      const res = await send(t.url, { method: 'OPTIONS', path: '/v1/jobs', ca })
      expect(res.status).toBe(204)
      expect(header(res, 'allow')).toBe('GET, HEAD, POST, OPTIONS')
      const unknown = await send(t.url, { method: 'OPTIONS', path: '/v1/nope', headers: { origin: APP }, ca })
      expect(unknown.status).toBe(404)
    })
  }
})

describe('CORS settings', () => {
  it('default: no origin is allowed; OPTIONS still answers, never 405; no CORS headers on responses', async () => {
    const t = await startTestApp({ listen: true })
    try {
      const ca = t.tls!.cert
      const pre = await h1Request(t.url, {
        method: 'OPTIONS',
        path: '/v1/hash/sha256',
        headers: { origin: APP, 'access-control-request-method': 'POST' },
        ca,
      })
      expect(pre.status).toBe(403)
      expect(pre.headers['access-control-allow-origin']).toBeUndefined()
      const res = await h2Request(t.url, {
        method: 'POST',
        path: '/v1/hash/sha256',
        headers: { origin: APP, authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
        body: '{"input":"abc"}',
        ca,
      })
      expect(res.status).toBe(200)
      expect(res.headers['access-control-allow-origin']).toBeUndefined()
      expect(res.headers.vary).toBeUndefined()
    } finally {
      await t.close()
    }
  })

  it('"*": any origin, answered with "*" (no Vary needed), never with credentials; the console still refused', async () => {
    const t = await startTestApp({ listen: true, env: { CORS_ALLOWED_ORIGINS: '*' } })
    try {
      const ca = t.tls!.cert
      const headers = { origin: EVIL, 'access-control-request-method': 'POST' }
      const pre = await h2Request(t.url, { method: 'OPTIONS', path: '/v1/jwt/decode', headers, ca })
      expect(pre.status).toBe(204)
      expect(pre.headers['access-control-allow-origin']).toBe('*')
      expect(pre.headers['access-control-allow-credentials']).toBeUndefined()
      const res = await h1Request(t.url, {
        method: 'POST',
        path: '/v1/hash/sha256',
        headers: { origin: EVIL, authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
        body: '{"input":"abc"}',
        ca,
      })
      expect(res.headers['access-control-allow-origin']).toBe('*')
      expect(res.headers['access-control-allow-credentials']).toBeUndefined()
      const console = await h1Request(t.url, { method: 'OPTIONS', path: '/console/api/signin', headers, ca })
      expect(console.status).toBe(403)
      expect(console.headers['access-control-allow-origin']).toBeUndefined()
    } finally {
      await t.close()
    }
  })

  it('the admin listener answers OPTIONS with Allow and refuses every browser origin', async () => {
    const t = await startTestApp()
    try {
      await t.admin.listen({ port: 0, host: '127.0.0.1' })
      const base = `http://127.0.0.1:${(t.admin.server.address() as AddressInfo).port}`
      const plain = await fetch(`${base}/admin/workspaces`, { method: 'OPTIONS' })
      expect(plain.status).toBe(204)
      expect(plain.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS')
      const pre = await fetch(`${base}/admin/workspaces`, {
        method: 'OPTIONS',
        headers: { origin: APP, 'access-control-request-method': 'POST' },
      })
      expect(pre.status).toBe(403)
      expect(pre.headers.get('access-control-allow-origin')).toBeNull()
    } finally {
      await t.close()
    }
  })

  it('CORS_ALLOWED_ORIGINS is validated at boot, naming the variable', () => {
    const bad = (value: string) => () => loadConfig({ CORS_ALLOWED_ORIGINS: value })
    expect(bad('https://app.example.com/')).toThrow(ConfigError)
    expect(bad('https://app.example.com/')).toThrow(
      /CORS_ALLOWED_ORIGINS: .*did you mean https:\/\/app\.example\.com\?/,
    )
    expect(bad('*, https://a.example')).toThrow(/CORS_ALLOWED_ORIGINS: "\*" must be the only entry/)
    expect(bad('ftp://files.example')).toThrow(/must be an http: or https: origin/)
    expect(bad('app.example.com')).toThrow(/is not an origin/)
    // written as a browser sends it (lower case, no default port), else it would never match
    expect(bad('https://A.example.com:443')).toThrow(/did you mean https:\/\/a\.example\.com\?/)
    expect(loadConfig({}).corsAllowedOrigins).toEqual([])
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: '' }).corsAllowedOrigins).toEqual([])
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: '*' }).corsAllowedOrigins).toBe('*')
  })
})
