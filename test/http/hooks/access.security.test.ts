import http from 'node:http'
import http2 from 'node:http2'
import https from 'node:https'
import Fastify from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { accessControl, type DeclaredRoute } from '../../../src/http/hooks/access.ts'
import { adminAuth } from '../../../src/http/hooks/admin-auth.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

// Deny by default, proved from the outside: every route either listener registered (as the access
// plugin's onRoute hook saw them) is asked without credentials over a real socket, by its own path and by
// every other spelling of it a router or a proxy might treat as the same: percent escapes, doubled and
// trailing slashes, another case, HEAD, and HTTP/2. None may answer 2xx.

interface Answer {
  status: number
  location?: string
}

function concrete(url: string): string {
  return url.replace(/:[A-Za-z_]+/g, 'x1').replace(/\*$/, 'x1')
}

const hex = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`

// encodes the first letter of segment i (or every letter) as a percent escape
function escaped(path: string, which: number | 'all'): string {
  const segments = path.split('/')
  return segments
    .map((s, i) => {
      if (which === 'all') return s.replace(/[A-Za-z]/g, hex)
      return i === which ? s.replace(/[A-Za-z]/, hex) : s
    })
    .join('/')
}

function variants(path: string): string[] {
  const segments = path.split('/')
  const last = segments.length - 1
  return [
    ...new Set([
      escaped(path, 1),
      escaped(path, last),
      escaped(path, 'all'),
      `/${path}`,
      path.replace(/^(\/[^/]+)\//, '$1//'),
      `${path}/`,
      path.toUpperCase(),
      path.replace(/[a-z]/, (c) => c.toUpperCase()),
    ]),
  ].filter((v) => v !== path)
}

function h1(
  agent: http.Agent,
  secure: boolean,
  port: number,
  method: string,
  path: string,
  ca?: string,
): Promise<Answer> {
  const request = secure ? https.request : http.request
  return new Promise((resolve, reject) => {
    const r = request(
      { host: '127.0.0.1', port, method, path, agent, ca, headers: { 'content-length': '0' } },
      (res) => {
        res.resume()
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }))
        res.on('error', reject)
      },
    )
    r.on('error', reject)
    r.end()
  })
}

function h2(session: http2.ClientHttp2Session, method: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': method, ':path': path })
    let answer: Answer = { status: 0 }
    stream.on('response', (h) => {
      answer = { status: Number(h[':status']), location: h.location as string | undefined }
    })
    stream.on('data', () => {})
    stream.on('end', () => resolve(answer))
    stream.on('error', reject)
    stream.end()
  })
}

// the route's own path, without credentials: refused by its rule (a console page: sent to sign-in)
function expectRefused(route: DeclaredRoute, answer: Answer, how: string): void {
  const where = `${how} ${route.method} ${route.url} (${route.security}) → ${answer.status}`
  if (answer.status === 303) {
    expect(route.security, where).toBe('sessionCookie')
    expect(answer.location, where).toMatch(/^\/console\/sign-in/)
    return
  }
  expect([401, 403], where).toContain(answer.status)
}

function expectNot2xx(route: DeclaredRoute, answer: Answer, how: string): void {
  const where = `${how} ${route.method} ${route.url} (${route.security}) → ${answer.status}`
  expect(answer.status === 0 || answer.status >= 300, where).toBe(true)
  expect(answer.status, where).not.toBe(0)
}

describe('every route refuses an unauthenticated request, however its path is spelled', () => {
  let t: TestApp
  let publicPort: number
  let adminPort: number

  beforeAll(async () => {
    t = await startTestApp({ listen: true })
    await t.admin.listen({ port: 0, host: '127.0.0.1' })
    publicPort = (t.app.server.address() as { port: number }).port
    adminPort = (t.admin.server.address() as { port: number }).port
  })
  afterAll(() => t.close())

  it('knows every route of both listeners, each with a declared rule', () => {
    const all = [...t.app.access.routes, ...t.admin.access.routes]
    for (const r of all) expect(['apiKey', 'sessionCookie', 'admin', 'none'], r.url).toContain(r.security)
    const admin = t.admin.access.routes
    expect(admin.filter((r) => r.security === 'admin').length).toBeGreaterThanOrEqual(9)
    expect(admin.filter((r) => r.security === 'none').map((r) => r.url)).toEqual(['/metrics', '/metrics'])
    const pub = t.app.access.routes
    expect(pub.some((r) => r.url.startsWith('/v1/hash/') && r.security === 'apiKey')).toBe(true)
    expect(pub.some((r) => r.url.startsWith('/console/api/') && r.security === 'sessionCookie')).toBe(true)
    expect(pub.some((r) => r.url === '/console/workspaces' && r.security === 'sessionCookie')).toBe(true)
    // nothing the public listener serves takes the admin token, and no admin route is on it
    expect(pub.some((r) => r.security === 'admin' || r.url.startsWith('/admin'))).toBe(false)
  })

  it('the internal listener (HTTP/1.1): admin routes, by every spelling', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 })
    try {
      let asked = 0
      for (const route of t.admin.access.routes.filter((r) => r.security !== 'none')) {
        const path = concrete(route.url)
        expectRefused(route, await h1(agent, false, adminPort, route.method, path), 'h1')
        for (const v of variants(path)) {
          expectNot2xx(route, await h1(agent, false, adminPort, route.method, v), `h1 ${v}`)
          expectNot2xx(route, await h1(agent, false, adminPort, 'HEAD', v), `h1 HEAD ${v}`)
          asked += 2
        }
      }
      expect(asked).toBeGreaterThan(100)
      // the reported hole: the router decodes %61 to a, and the rule is the matched route's
      const hole = await h1(agent, false, adminPort, 'GET', '/%61dmin/workspaces')
      expect(hole.status).toBe(401)
      expect((await h1(agent, false, adminPort, 'POST', '/%61dmin/keys')).status).toBe(401)
    } finally {
      agent.destroy()
    }
  })

  it('the public listener over HTTPS/1.1 and HTTP/2: API-key and console routes, by every spelling', async () => {
    const ca = t.tls!.cert
    const agent = new https.Agent({ keepAlive: true, maxSockets: 4, ca })
    const session = http2.connect(`https://127.0.0.1:${publicPort}`, { ca })
    try {
      let asked = 0
      for (const route of t.app.access.routes.filter((r) => r.security !== 'none')) {
        const path = concrete(route.url)
        expectRefused(route, await h1(agent, true, publicPort, route.method, path, ca), 'h1')
        expectRefused(route, await h2(session, route.method, path), 'h2')
        for (const v of variants(path)) {
          expectNot2xx(route, await h1(agent, true, publicPort, route.method, v, ca), `h1 ${v}`)
          expectNot2xx(route, await h1(agent, true, publicPort, 'HEAD', v, ca), `h1 HEAD ${v}`)
          expectNot2xx(route, await h2(session, route.method, v), `h2 ${v}`)
          expectNot2xx(route, await h2(session, 'HEAD', v), `h2 HEAD ${v}`)
          asked += 4
        }
      }
      expect(asked).toBeGreaterThan(500)
      expect((await h2(session, 'POST', '/v1/%68ash/sha256')).status).toBe(401)
    } finally {
      agent.destroy()
      session.close()
    }
  })

  it('still serves legitimate callers: the key on /v1, the token on the admin API (also %-escaped)', async () => {
    const ok = await t.post('/v1/%68ash/sha256', { input: 'x' })
    expect(ok.statusCode).toBe(200)
    const admin = await t.admin.inject({
      url: '/%61dmin/workspaces',
      headers: { authorization: `Bearer ${t.adminToken}` },
    })
    expect(admin.statusCode).toBe(200)
    const wrong = await t.admin.inject({
      url: '/admin/workspaces',
      headers: { authorization: `Bearer ${t.adminToken}x` },
    })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="anvil-admin"')
  })
})

describe('a route that declares no access rule does not register', () => {
  async function listener() {
    const app = Fastify()
    await app.register(accessControl)
    await app.register(adminAuth, { token: 'a-token-of-sixteen-chars' })
    return app
  }

  it('plain app.get without config.security throws at registration', async () => {
    const app = await listener()
    expect(() => app.get('/open', async () => 'hi')).toThrow(/GET \/open declares no access rule/)
    expect(() => app.get('/typo', { config: { security: 'nobody' as never } }, async () => 'hi')).toThrow(
      /declares no access rule/,
    )
    await app.close()
  })

  it('a plugin that registers an undeclared route fails the boot', async () => {
    const app = await listener()
    const boot = async () => {
      await app.register(async function sneaky(scope) {
        scope.post('/sneaky', async () => 'hi')
      })
      await app.ready()
    }
    await expect(boot()).rejects.toThrow(/POST \/sneaky declares no access rule/)
    await app.close()
  })

  it('a rule the listener does not provide, or an apiKey route without a family, fails too', async () => {
    const app = await listener()
    expect(() =>
      app.get('/console-like', { config: { security: 'sessionCookie' } }, async () => 'hi'),
    ).toThrow(/security sessionCookie, which this listener does not provide/)
    const t = await startTestApp()
    try {
      expect(() => t.app.get('/v1/loose', { config: { security: 'apiKey' } }, async () => 'hi')).toThrow(
        /must declare its family/,
      )
      expect(() => t.app.get('/v1/admin-ish', { config: { security: 'admin' } }, async () => 'hi')).toThrow(
        /does not provide/,
      )
    } finally {
      await t.close()
      await app.close()
    }
  })
})
