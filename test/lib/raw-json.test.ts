import { afterEach, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../helpers/harness.ts'
import { declaredBodyOnly } from '../helpers/tls-client.ts'

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
    const { jsonDiff } = await import('../../src/ops/json/diff/diff.ts')
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

  // a request to the paid pool whose body is declared but never sent, over TLS: answers once admitted or refused
  async function declaredOnly(length: number) {
    const res = await declaredBodyOnly(t.url, { path: '/v1/json/diff', ca: t.tls!.cert, key: t.key, length })
    return {
      status: res.status,
      body: res.body.toString('utf8'),
      retry: res.headers['retry-after'],
      connection: res.headers.connection,
    }
  }

  function fillPaidPool() {
    const admission = t.runtime.pools.pick(t.workspaceId, 'paid').admission
    // one filler workspace per place: a workspace holds at most half the places for unfinished bodies
    const held = Array.from(
      { length: admission.capacity },
      (_, i) => admission.reserve(`ws_filler${i}`, 0).reservation,
    )
    expect(admission.full()).toBe(true)
    return { admission, held }
  }

  it('refuses a large body with 503 before reading it when its pool is full (no admission wait)', async () => {
    t = await startTestApp({
      listen: true,
      env: { POOL_PAID_THREADS: '1', POOL_PAID_QUEUE: '1', POOL_ADMISSION_WAIT_MS: '0' },
    })
    const { admission, held } = fillPaidPool()
    try {
      const res = await declaredOnly(5_000_000)
      expect(res.status).toBe(503)
      expect(JSON.parse(res.body).error.code).toBe('ERR_OVERLOADED')
      expect(res.retry).toBe('1')
      // the unread body is not drained: the connection is closed
      expect(res.connection).toBe('close')
    } finally {
      for (const r of held) admission.cancel(r)
    }
  })

  it('a large body waits, unread, for a place on its full pool, and is refused when none comes', async () => {
    t = await startTestApp({
      listen: true,
      env: { POOL_PAID_THREADS: '1', POOL_PAID_QUEUE: '1', POOL_ADMISSION_WAIT_MS: '300' },
    })
    const { admission, held } = fillPaidPool()
    try {
      const refused = await declaredOnly(5_000_000)
      expect(refused.status).toBe(503)
      expect(JSON.parse(refused.body).error.code).toBe('ERR_OVERLOADED')
      expect(admission.waiting).toBe(0)
      // counted like a full queue at dispatch, so the overload alerts see refusals at the door too
      expect(await t.runtime.metrics.registry.metrics()).toContain(
        'anvil_pool_tasks_total{pool="paid",op="json.diff",outcome="overloaded"} 1\n',
      )
    } finally {
      for (const r of held) admission.cancel(r)
    }
  })

  it('a body over the plan limit is refused with 413 at once, not made to wait for a place', async () => {
    t = await startTestApp({
      listen: true,
      env: { POOL_PAID_THREADS: '1', POOL_PAID_QUEUE: '1', POOL_ADMISSION_WAIT_MS: '60000' },
    })
    const { admission, held } = fillPaidPool()
    try {
      const res = await declaredOnly(25 * 1024 * 1024) // business JSON limit: 20 MiB
      expect(res.status).toBe(413)
      expect(JSON.parse(res.body).error.code).toBe('ERR_PAYLOAD_TOO_LARGE')
      expect(admission.waiting).toBe(0)
    } finally {
      for (const r of held) admission.cancel(r)
    }
  })

  it('a waiting body is admitted as soon as a place comes free, first come first served', async () => {
    t = await startTestApp({
      env: { POOL_PAID_THREADS: '1', POOL_PAID_QUEUE: '1', POOL_ADMISSION_WAIT_MS: '30000' },
    })
    const { admission, held } = fillPaidPool()
    const body = { left, right, array_key: 'id', output: 'both' }
    const first = t.post('/v1/json/diff', body)
    const second = t.post('/v1/json/diff', body)
    await expect.poll(() => admission.waiting).toBe(2)
    expect(await t.runtime.metrics.registry.metrics()).toContain(
      'anvil_pool_admission_waiting{pool="paid"} 2\n',
    )
    admission.cancel(held[0]!)
    const answered = await first
    expect(answered.statusCode).toBe(200)
    expect(where(answered)).toBe('paid')
    // the second waited its turn and took the place the first one gave back when its task finished
    expect((await second).statusCode).toBe(200)
    expect(admission.waiting).toBe(0)
    for (const r of held) admission.cancel(r)
    expect(admission.full()).toBe(false)
    expect(admission.inFlight).toBe(0)
  })
})
