import https from 'node:https'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../helpers/harness.ts'

function where(res: { headers: Record<string, unknown> }): string | undefined {
  return /dispatch;desc="([^"]+)"/.exec(String(res.headers['server-timing']))?.[1]
}

const left = {
  users: Array.from({ length: 600 }, (_, i) => ({ id: i, name: `user ${i}`, tags: ['a', 'b'] })),
}
const right = { users: left.users.map((u, i) => (i % 7 === 0 ? { ...u, name: `${u.name}!` } : u)).slice(5) }

// Large diff bodies are handed to the worker as bytes: parsed, validated and serialized off the event loop.
describe('raw JSON bodies on the pool', () => {
  let t: TestApp
  afterEach(() => t?.close())

  it('gives exactly the inline answer', async () => {
    t = await startTestApp()
    const body = { left, right, array_key: 'id', output: 'both' }
    const big = await t.post('/v1/json/diff', body)
    expect(big.statusCode).toBe(200)
    expect(where(big)).toBe('paid')
    expect(big.headers['content-type']).toBe('application/json; charset=utf-8')
    const small = await t.post('/v1/json/diff', {
      left: left.users.slice(0, 3),
      right: right.users.slice(0, 3),
    })
    // inline work carries no Server-Timing
    expect(small.headers['server-timing']).toBeUndefined()
    const { jsonDiff } = await import('../../src/ops/json-diff.ts')
    expect(big.json()).toEqual({
      ok: true,
      data: jsonDiff({ left, right, array_key: 'id', output: 'both', detect_moves: true }),
    })
  })

  it('reports invalid JSON and schema violations from the worker with the same details', async () => {
    t = await startTestApp()
    const text = JSON.stringify({ left, right })
    // a stray bracket after an array item, well past the pool threshold: the comma is fine, the brace is not
    const at = text.indexOf('},{', 30_000) + 1
    const bad = await t.post('/v1/json/diff', `${text.slice(0, at)}]${text.slice(at)}`)
    expect(bad.statusCode).toBe(400)
    expect(bad.json().error).toMatchObject({
      code: 'ERR_INVALID_JSON',
      details: { line: 1, column: at + 3, offset: at + 2 },
    })
    const invalid = await t.post('/v1/json/diff', { left, right, output: 'everything' })
    expect(invalid.statusCode).toBe(400)
    expect(invalid.json().error).toMatchObject({
      code: 'ERR_VALIDATION',
      details: { issues: [{ path: 'output' }] },
    })
    const notObject = await t.post('/v1/json/diff', JSON.stringify([left, right]))
    expect(notObject.json().error).toMatchObject({
      code: 'ERR_VALIDATION',
      message: 'The body must be a JSON object.',
    })
  })

  it('refuses a large body with 503 before reading it when its pool is full', async () => {
    t = await startTestApp({ listen: true, env: { POOL_PAID_THREADS: '1', POOL_PAID_QUEUE: '1' } })
    const pool = t.runtime.pools.pick(t.workspaceId, 'paid')
    pool.inFlight = pool.capacity
    try {
      const res = await new Promise<{ status: number; body: string; retry: unknown }>((resolve, reject) => {
        const req = https.request(`${t.url}/v1/json/diff`, {
          method: 'POST',
          ca: t.tls!.cert,
          agent: false,
          headers: {
            authorization: `Bearer ${t.key}`,
            'content-type': 'application/json',
            'content-length': '5000000',
          },
        })
        req.on('response', (r) => {
          let body = ''
          r.on('data', (c: Buffer) => {
            body += c.toString()
          })
          r.on('end', () => {
            req.destroy()
            resolve({ status: r.statusCode ?? 0, body, retry: r.headers['retry-after'] })
          })
        })
        req.on('error', reject)
        req.flushHeaders() // no body is ever sent
      })
      expect(res.status).toBe(503)
      expect(JSON.parse(res.body).error.code).toBe('ERR_OVERLOADED')
      expect(res.retry).toBe('1')
    } finally {
      pool.inFlight = 0
    }
  })
})

describe('raw JSON patch bodies on the pool', () => {
  let t: TestApp
  afterEach(() => t?.close())

  it('apply on the worker with the inline answers and errors', async () => {
    t = await startTestApp()
    // twice the diff document: past json.patch's 32 KiB pool threshold
    const doc = { users: [...left.users, ...left.users] }
    const patch = [{ op: 'replace', path: '/users/3/name', value: 'renamed' }]
    const big = await t.post('/v1/json/patch', { document: doc, patch })
    expect(big.statusCode).toBe(200)
    expect(where(big)).toBe('paid')
    expect(big.json().data.result.users[3].name).toBe('renamed')
    const failed = await t.post('/v1/json/patch', {
      document: doc,
      patch: [{ op: 'test', path: '/users/0/id', value: 9 }],
    })
    expect(failed.statusCode).toBe(400)
    expect(failed.json().error).toMatchObject({
      code: 'ERR_PATCH_TEST_FAILED',
      details: { index: 0, path: '/users/0/id' },
    })
    const small = await t.post('/v1/json/patch', {
      document: { a: 1 },
      patch: [{ op: 'remove', path: '/a' }],
    })
    // inline work carries no Server-Timing
    expect(small.headers['server-timing']).toBeUndefined()
    expect(small.json().data.result).toEqual({})
  })
})
