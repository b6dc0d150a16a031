import https from 'node:https'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AppError } from '../../../src/errors.ts'
import { MemoryStore } from '../../../src/store/memory/memory-store.ts'
import type { Store } from '../../../src/store/types.ts'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../../helpers/harness.ts'
import { h1Request, h2Request, type RawResponse } from '../../helpers/tls-client.ts'

// Every row of docs/api.md's error table, answered over a real TLS socket with the envelope and Request-Id.
describe('error table over TLS', () => {
  let t: TestApp
  let ca: string
  let free: string

  beforeAll(async () => {
    t = await startTestApp({ plan: 'business', tls: true, env: { REQUEST_TIMEOUT_MS: '1500' } })
    free = (await t.newWorkspace('free')).key
    t.app.post('/v1/test/boom', { config: { security: 'apiKey', family: 'hash' } }, async function boom() {
      throw new Error('internal detail: db password hunter2')
    })
    t.app.post(
      '/v1/test/compute',
      { config: { security: 'apiKey', family: 'hash' } },
      async function compute() {
        throw new AppError('ERR_COMPUTE_LIMIT', undefined, { budget_ms: 1000 })
      },
    )
    t.app.post(
      '/v1/test/overloaded',
      { config: { security: 'apiKey', family: 'hash' } },
      async function overloaded() {
        throw new AppError('ERR_OVERLOADED', undefined, undefined, { 'retry-after': '2' })
      },
    )
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    t.url = `https://127.0.0.1:${(t.app.server.address() as { port: number }).port}`
    ca = t.tls!.cert
  })
  afterAll(() => t.close())

  const post = (path: string, body: string, headers: Record<string, string> = {}, key = t.key) =>
    h1Request(t.url, {
      method: 'POST',
      path,
      ca,
      body,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    })

  function expectError(res: RawResponse, status: number, code: string, type = 'invalid_request') {
    expect(res.status).toBe(status)
    expect(res.headers['request-id']).toMatch(/^req_[0-9A-Za-z]{20}$/)
    const body = res.json<{ error: { code: string; type: string; message: string } }>()
    expect(body.error.code).toBe(code)
    expect(body.error.type).toBe(type)
    expect(typeof body.error.message).toBe('string')
    expect(res.body.toString()).not.toMatch(/at .+\.ts:\d+|node:internal|stack/)
    return body.error as { code: string; details?: Record<string, unknown> }
  }

  it('400 ERR_INVALID_JSON with line, column and offset', async () => {
    const err = expectError(
      await post('/v1/hash/sha256', '{\n  "input": "x",\n  oops\n}'),
      400,
      'ERR_INVALID_JSON',
    )
    expect(err.details).toEqual({ line: 3, column: 3, offset: 20 })
  })

  it('400 ERR_VALIDATION with issues', async () => {
    const err = expectError(await post('/v1/hash/sha256', '{"input": 1}'), 400, 'ERR_VALIDATION')
    expect(err.details).toEqual({ issues: [{ path: 'input', message: expect.any(String) }] })
    expectError(await post('/v1/hash/sha256', '[1,2]'), 400, 'ERR_VALIDATION')
  })

  it('400 endpoint code', async () => {
    expectError(await post('/v1/hash/whirlpool9', '{"input":"x"}'), 400, 'ERR_UNSUPPORTED_ALGORITHM')
  })

  it('404 ERR_NOT_FOUND and 405 ERR_METHOD_NOT_ALLOWED with Allow', async () => {
    expectError(await h1Request(t.url, { path: '/v1/nope', ca }), 404, 'ERR_NOT_FOUND')
    const res = await h1Request(t.url, { method: 'DELETE', path: '/v1/hash/sha256', ca })
    const err = expectError(res, 405, 'ERR_METHOD_NOT_ALLOWED')
    expect(res.headers.allow).toBe('POST')
    expect(err.details).toEqual({ allowed: ['POST'] })
    const get = await h1Request(t.url, { method: 'POST', path: '/healthz', ca })
    expect(get.headers.allow).toBe('GET, HEAD')
  })

  it('413 ERR_PAYLOAD_TOO_LARGE from Content-Length, before the body is sent', async () => {
    const res = await new Promise<RawResponse>((resolve, reject) => {
      const req = https.request(`${t.url}/v1/hash/sha256`, {
        method: 'POST',
        ca,
        agent: false,
        headers: {
          authorization: `Bearer ${free}`,
          'content-type': 'application/json',
          'content-length': String(100 * 1024 * 1024),
        },
      })
      req.on('response', (r) => {
        const chunks: Buffer[] = []
        r.on('data', (c: Buffer) => chunks.push(c))
        r.on('end', () => {
          req.destroy()
          const body = Buffer.concat(chunks)
          resolve({
            status: r.statusCode ?? 0,
            headers: r.headers,
            body,
            json: () => JSON.parse(body.toString()),
          })
        })
      })
      req.on('error', reject)
      req.flushHeaders() // headers only: the server must answer without waiting for 100 MiB
    })
    const err = expectError(res, 413, 'ERR_PAYLOAD_TOO_LARGE')
    expect(err.details).toEqual({ limit_bytes: 256 * 1024 })
  })

  it('413 while streaming a chunked body past the limit', async () => {
    const res = await new Promise<RawResponse>((resolve, reject) => {
      const req = https.request(`${t.url}/v1/hash/sha256`, {
        method: 'POST',
        ca,
        agent: false,
        headers: { authorization: `Bearer ${free}`, 'content-type': 'application/octet-stream' },
      })
      req.on('response', (r) => {
        const chunks: Buffer[] = []
        r.on('data', (c: Buffer) => chunks.push(c))
        r.on('end', () => {
          req.destroy()
          const body = Buffer.concat(chunks)
          resolve({
            status: r.statusCode ?? 0,
            headers: r.headers,
            body,
            json: () => JSON.parse(body.toString()),
          })
        })
      })
      req.on('error', () => {})
      const chunk = Buffer.alloc(64 * 1024)
      let sent = 0
      const pump = () => {
        while (sent < 4 * 1024 * 1024 && !req.destroyed) {
          sent += chunk.length
          if (!req.write(chunk)) return void req.once('drain', pump)
        }
        req.end()
      }
      pump()
      setTimeout(() => reject(new Error('no response')), 10_000).unref()
    })
    const err = expectError(res, 413, 'ERR_PAYLOAD_TOO_LARGE')
    expect(err.details).toEqual({ limit_bytes: 1024 * 1024 })
  })

  it('415 ERR_UNSUPPORTED_MEDIA_TYPE', async () => {
    expectError(
      await post('/v1/hash/sha256', 'input=x', { 'content-type': 'text/plain' }),
      415,
      'ERR_UNSUPPORTED_MEDIA_TYPE',
    )
    expectError(
      await post('/v1/hash/sha256', '{}', { 'content-type': 'application/json; charset=latin1' }),
      415,
      'ERR_UNSUPPORTED_MEDIA_TYPE',
    )
  })

  it('422 ERR_COMPUTE_LIMIT', async () => {
    const err = expectError(await post('/v1/test/compute', '{}'), 422, 'ERR_COMPUTE_LIMIT')
    expect(err.details).toEqual({ budget_ms: 1000 })
  })

  it('401 ERR_MISSING_API_KEY and ERR_INVALID_API_KEY', async () => {
    const missing = await h1Request(t.url, {
      method: 'POST',
      path: '/v1/hash/sha256',
      ca,
      body: '{}',
      headers: { 'content-type': 'application/json' },
    })
    expectError(missing, 401, 'ERR_MISSING_API_KEY', 'authentication_error')
    expectError(
      await post('/v1/hash/sha256', '{}', {}, 'anvil_live_x'),
      401,
      'ERR_INVALID_API_KEY',
      'authentication_error',
    )
  })

  it('403 ERR_KEY_SCOPE', async () => {
    const scoped = await t.newKey({ families: ['url'] })
    expectError(
      await post('/v1/hash/sha256', '{"input":"x"}', {}, scoped.key),
      403,
      'ERR_KEY_SCOPE',
      'permission_error',
    )
  })

  it('429 ERR_RATE_LIMITED and ERR_QUOTA_EXCEEDED with Retry-After', async () => {
    const k = await t.newWorkspace('free')
    const all = await Promise.all(
      Array.from({ length: 12 }, () => post('/v1/hash/sha256', '{"input":"x"}', {}, k.key)),
    )
    const limited = all.find((r) => r.status === 429)!
    expectError(limited, 429, 'ERR_RATE_LIMITED', 'rate_limit_error')
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1)

    const other = await t.newWorkspace('free')
    await t.admin.inject({
      method: 'PATCH',
      url: `/admin/workspaces/${other.workspaceId}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ overrides: { monthly_quota: 0 } }),
    })
    const quota = await post('/v1/hash/sha256', '{"input":"x"}', {}, other.key)
    expectError(quota, 429, 'ERR_QUOTA_EXCEEDED', 'rate_limit_error')
    expect(Number(quota.headers['retry-after'])).toBeGreaterThanOrEqual(1)
  })

  it('500 ERR_INTERNAL never leaks the message or a stack', async () => {
    const res = await post('/v1/test/boom', '{}', {}, (await t.newWorkspace()).key)
    expectError(res, 500, 'ERR_INTERNAL', 'api_error')
    expect(res.body.toString()).not.toContain('hunter2')
    expect(res.body.toString()).not.toContain('internal detail')
  })

  it('503 ERR_OVERLOADED with Retry-After', async () => {
    const res = await post('/v1/test/overloaded', '{}', {}, (await t.newWorkspace()).key)
    expectError(res, 503, 'ERR_OVERLOADED', 'api_error')
    expect(res.headers['retry-after']).toBe('2')
  })

  it('408 ERR_REQUEST_TIMEOUT when a body never finishes arriving', async () => {
    const res = await new Promise<RawResponse>((resolve, reject) => {
      const req = https.request(`${t.url}/v1/hash/sha256`, {
        method: 'POST',
        ca,
        agent: false,
        headers: {
          authorization: `Bearer ${t.key}`,
          'content-type': 'application/json',
          'content-length': '100',
        },
      })
      req.on('response', (r) => {
        const chunks: Buffer[] = []
        r.on('data', (c: Buffer) => chunks.push(c))
        r.on('end', () => {
          const body = Buffer.concat(chunks)
          resolve({
            status: r.statusCode ?? 0,
            headers: r.headers,
            body,
            json: () => JSON.parse(body.toString()),
          })
        })
      })
      req.on('error', reject)
      req.write('{"input":')
    })
    expectError(res, 408, 'ERR_REQUEST_TIMEOUT')
  })

  it('the same envelope over HTTP/2, and a sane client Request-Id is echoed', async () => {
    const res = await h2Request(t.url, {
      method: 'POST',
      path: '/v1/hash/sha256',
      ca,
      body: '{"input":',
      headers: {
        authorization: `Bearer ${t.key}`,
        'content-type': 'application/json',
        'request-id': 'client-trace-0001',
      },
    })
    expect(res.status).toBe(400)
    expect(res.headers['request-id']).toBe('client-trace-0001')
    expect(res.json<{ error: { code: string } }>().error.code).toBe('ERR_INVALID_JSON')
    const insane = await h2Request(t.url, {
      path: '/healthz',
      ca,
      headers: { 'request-id': 'bad id\twith tabs' },
    })
    expect(insane.headers['request-id']).toMatch(/^req_/)
  })

  it('admin listener: 401 ERR_UNAUTHORIZED without the token', async () => {
    const res = await t.admin.inject({ method: 'GET', url: '/admin/workspaces' })
    expect(res.statusCode).toBe(401)
    expect(res.json().error.code).toBe('ERR_UNAUTHORIZED')
    expect(res.headers['request-id']).toBeTruthy()
  })
})

describe('503 ERR_UNAVAILABLE when the store fails', () => {
  it('answers 503 with Retry-After in bounded time', async () => {
    const inner = await MemoryStore.open({ dataDir: null })
    const broken: Store = new Proxy(inner, {
      get(target, prop, receiver) {
        if (prop === 'consume') return () => Promise.reject(new Error('connection refused'))
        // the embedded store's synchronous path fails the same way
        if (prop === 'consumeNow')
          return () => {
            throw new Error('connection refused')
          }
        const value = Reflect.get(target, prop, receiver)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const t = await startTestApp({ tls: true, overrides: { store: broken } })
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const url = `https://127.0.0.1:${(t.app.server.address() as { port: number }).port}`
      const res = await h1Request(url, {
        method: 'POST',
        path: '/v1/hash/sha256',
        ca: t.tls!.cert,
        body: '{"input":"x"}',
        headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      })
      expect(res.status).toBe(503)
      expect(res.json<{ error: { code: string } }>().error.code).toBe('ERR_UNAVAILABLE')
      expect(res.headers['retry-after']).toBe('1')
    } finally {
      await t.close()
    }
  })
})

describe('routing failures before any hook', () => {
  it('a malformed %-escape and an over-long path parameter get the envelope', async () => {
    const t = await startTestApp()
    try {
      const bad = await t.app.inject({
        method: 'POST',
        url: '/v1/hash/%zz',
        headers: { authorization: `Bearer ${t.key}` },
      })
      expect(bad.statusCode).toBe(400)
      expect(bad.json().error.code).toBe('ERR_BAD_REQUEST')
      expect(bad.headers['request-id']).toMatch(/^req_/)
      const long = await t.app.inject({ method: 'POST', url: `/v1/hash/${'a'.repeat(500)}` })
      expect(long.statusCode).toBe(414)
      expect(long.json().error.code).toBe('ERR_URI_TOO_LONG')
    } finally {
      await t.close()
    }
  })
})
