import https from 'node:https'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../helpers/harness.ts'
import { h1Request } from '../helpers/tls-client.ts'

const KiB = 1024
const MiB = 1024 * KiB

// Pretty JSON records: formatting them with sort_keys and a wide indent costs the thread real work per byte.
function records(bytes: number): Buffer {
  const one = JSON.stringify({
    id: 123456789,
    name: 'caf\u00e9 "q"',
    tags: ['a', 'b', 'c'],
    nested: { z: 1, a: [1.5, -2e-7, null] },
  })
  const count = Math.ceil(bytes / (one.length + 1))
  return Buffer.from(`[${Array.from({ length: count }, () => one).join(',')}]`)
}

// A raw POST whose body is written piece by piece; `stopAfter` leaves it unfinished (the socket stays open).
function rawPost(
  t: TestApp,
  path: string,
  body: Buffer,
  options: { stopAfter?: number; accept?: string } = {},
): { request: ReturnType<typeof https.request>; answer: Promise<{ status: number; body: string }> } {
  const request = https.request(`${t.url}${path}`, {
    method: 'POST',
    ca: t.tls!.cert,
    agent: false,
    headers: {
      authorization: `Bearer ${t.key}`,
      'content-type': 'application/octet-stream',
      'content-length': String(body.length),
      ...(options.accept ? { accept: options.accept } : {}),
    },
  })
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.on('response', (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }))
      res.on('error', reject)
    })
    request.on('error', reject)
  })
  const end = options.stopAfter ?? body.length
  let at = 0
  function pump(): void {
    while (at < end) {
      const piece = body.subarray(at, Math.min(end, at + 64 * KiB))
      at += piece.length
      if (!request.write(piece)) return void request.once('drain', pump)
    }
    if (end === body.length) request.end()
  }
  pump()
  return { request, answer }
}

// The pool's thread starts on first use (POOL_WARM=false in tests) and loads every op first: on a loaded
// machine that can pass the 5 s a task may wait for a thread (503). Tests of what a stream does wait for it.
async function warmPool(t: TestApp): Promise<void> {
  const deadline = performance.now() + 60_000
  for (;;) {
    const res = await h1Request(t.url, {
      method: 'POST',
      path: '/v1/hash/sha256',
      ca: t.tls!.cert,
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/octet-stream' },
      body: 'warm',
    })
    if (res.status === 200) return
    if (res.status !== 503 || performance.now() > deadline) throw new Error(`warm-up answered ${res.status}`)
  }
}

async function until(check: () => boolean, timeoutMs: number): Promise<number> {
  const started = performance.now()
  while (!check()) {
    if (performance.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 5))
  }
  return performance.now() - started
}

describe('raw bodies streamed to the plan pool', () => {
  let t: TestApp
  afterEach(async () => {
    await t?.close()
  })

  it('runs on the plan tier pool (free plan: free pool) and says so in Server-Timing', {
    timeout: 60_000,
  }, async () => {
    t = await startTestApp({ listen: true, plan: 'free' })
    await warmPool(t)
    const body = Buffer.from('[1, 2, {"a": true}]')
    const { answer } = rawPost(t, '/v1/json/format?mode=minify', body)
    const res = await answer
    expect(res.status).toBe(200)
    expect(JSON.parse(res.body).data.output).toBe('[1,2,{"a":true}]')
    const free = t.runtime.pools.pick(t.workspaceId, 'free')
    expect(free.name).toBe('free')
    expect(free.piscina.completed).toBeGreaterThanOrEqual(2)
    expect(t.runtime.pools.pick(t.workspaceId, 'paid').piscina.completed).toBe(0)
    const hashed = await h1Request(t.url, {
      method: 'POST',
      path: '/v1/hash/sha256',
      ca: t.tls!.cert,
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/octet-stream' },
      body: 'abc',
    })
    expect(hashed.status).toBe(200)
    expect(String(hashed.headers['server-timing'])).toMatch(/dispatch;desc="free", wait;dur=[\d.]+, run;dur=/)
  })

  it('refuses a stream over the compute budget with 422 and the bytes processed', {
    timeout: 60_000,
  }, async () => {
    // a 300 ms budget: formatting 32 MiB with sort_keys takes the thread seconds (~20 ms per 256 KiB)
    t = await startTestApp({
      listen: true,
      env: { PLANS: JSON.stringify({ business: { compute_budget_ms: 300 } }) },
    })
    await warmPool(t)
    // the pool's one thread formats small bodies first (compiles the formatter), so the budget meets warm
    // code; their answers do not matter (a cold first one may itself pass the budget)
    for (let round = 0; round < 3; round++) {
      await rawPost(t, '/v1/json/format?indent=8&sort_keys=true', records(512 * KiB)).answer
    }
    const body = records(32 * MiB)
    const { answer } = rawPost(t, '/v1/json/format?indent=8&sort_keys=true', body)
    const res = await answer
    expect(res.status).toBe(422)
    const error = JSON.parse(res.body).error
    expect(error.code).toBe('ERR_COMPUTE_LIMIT')
    expect(error.details).toMatchObject({ reason: 'time', budget_ms: 300 })
    expect(error.details.bytes_processed).toBeGreaterThan(0)
    expect(error.details.bytes_processed).toBeLessThan(body.length)
    // the pool's place and thread are given back
    const pool = t.runtime.pools.pick(t.workspaceId, 'paid')
    await until(() => pool.admission.inFlight === 0, 2_000)
  })

  it('a thread out of memory answers like any pooled op: 422 {reason: memory}, counted oom; the pool recovers', {
    timeout: 60_000,
  }, async () => {
    // a 32 MiB heap: sorting the keys of one object of two million members takes more
    t = await startTestApp({ listen: true, env: { POOL_PAID_MEMORY_MB: '32' } })
    await warmPool(t)
    const members = Array.from({ length: 2_000_000 }, (_, i) => `"k${i}":${i}`)
    const body = Buffer.from(`{${members.join(',')}}`)
    const { answer } = rawPost(t, '/v1/json/format?mode=minify&sort_keys=true', body, {
      accept: 'application/octet-stream',
    })
    const res = await answer
    expect(res.status).toBe(422)
    expect(JSON.parse(res.body).error).toMatchObject({
      code: 'ERR_COMPUTE_LIMIT',
      message: "The operation exceeded the plan's memory budget.",
      details: { reason: 'memory' },
    })
    const metrics = (await t.admin.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).toMatch(/anvil_pool_tasks_total\{pool="paid",op="json.format",outcome="oom"\} 1\n/)
    expect(metrics).toMatch(/anvil_pool_tasks_total\{pool="paid",op="json.format",outcome="crash"\} 0\n/)
    expect(metrics).toMatch(/anvil_pool_worker_restarts_total\{pool="paid"\} 1\n/)
    // a replacement thread serves the next stream
    await warmPool(t)
    const small = await rawPost(t, '/v1/base64/encode', Buffer.from('abc')).answer
    expect(small.status).toBe(200)
    expect(JSON.parse(small.body).data.output).toBe('YWJj')
  })

  it('charges only the time the thread works, not the time it waits for the body', {
    timeout: 60_000,
  }, async () => {
    // a 200 ms budget and a body that trickles in over ~1 s: the stream is answered, not refused
    t = await startTestApp({
      listen: true,
      env: { PLANS: JSON.stringify({ business: { compute_budget_ms: 200 } }) },
    })
    await warmPool(t)
    const body = Buffer.from(JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ i }))))
    const { request, answer } = rawPost(t, '/v1/json/format?mode=minify', body, { stopAfter: 1000 })
    for (let at = 1000; at < body.length; ) {
      await new Promise((r) => setTimeout(r, 100))
      const next = Math.min(body.length, at + Math.ceil(body.length / 10))
      request.write(body.subarray(at, next))
      at = next
    }
    request.end()
    const res = await answer
    expect(res.status).toBe(200)
    expect(JSON.parse(res.body).data.output).toBe(JSON.stringify(JSON.parse(body.toString())))
  })

  it('ends the task and frees its thread at once when the client goes', { timeout: 60_000 }, async () => {
    t = await startTestApp({ listen: true })
    await warmPool(t)
    const pool = t.runtime.pools.pick(t.workspaceId, 'paid')
    const body = Buffer.alloc(64 * MiB, 0x61)
    // 4 MiB sent of a declared 64 MiB, then the socket is dropped mid-body
    const { request, answer } = rawPost(t, '/v1/hash/sha256', body, { stopAfter: 4 * MiB })
    answer.catch(() => {})
    await until(() => pool.admission.inFlight === 1, 10_000)
    await new Promise((r) => setTimeout(r, 300))
    const thread = pool.piscina.threads[0]!.threadId
    request.destroy()
    const freedIn = await until(() => pool.admission.inFlight === 0, 2_000)
    expect(freedIn).toBeLessThan(1_000)
    // ended by the thread itself between two chunks, not by killing it (a kill replaces the thread)
    expect(pool.piscina.threads.map((w) => w.threadId)).toEqual([thread])
    // the pool's only thread takes the next stream at once
    const started = performance.now()
    const next = await h1Request(t.url, {
      method: 'POST',
      path: '/v1/hash/sha256',
      ca: t.tls!.cert,
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/octet-stream' },
      body: 'abc',
    })
    expect(next.status).toBe(200)
    expect(JSON.parse(next.body.toString()).data.digest).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    )
    expect(performance.now() - started).toBeLessThan(5_000)
  })

  it('refuses a body past the plan limit with 413 on the bytes received, and gives the place back', {
    timeout: 60_000,
  }, async () => {
    t = await startTestApp({ listen: true, plan: 'free' })
    const pool = t.runtime.pools.pick(t.workspaceId, 'free')
    // Content-Length under the 1 MiB limit, more bytes sent: refused on what actually arrives
    const body = Buffer.alloc(2 * MiB, 0x61)
    const request = https.request(`${t.url}/v1/base64/encode`, {
      method: 'POST',
      ca: t.tls!.cert,
      agent: false,
      headers: {
        authorization: `Bearer ${t.key}`,
        'content-type': 'application/octet-stream',
        'transfer-encoding': 'chunked',
      },
    })
    const status = new Promise<number>((resolve) => {
      request.on('response', (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      request.on('error', () => resolve(-1))
    })
    request.write(body)
    expect(await status).toBe(413)
    request.destroy()
    await until(() => pool.admission.inFlight === 0, 2_000)
  })
})
