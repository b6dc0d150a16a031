import { generateKeyPairSync } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { h1Request, type RawResponse } from '../../helpers/tls-client.ts'

// Issue 14's worst-case inputs, each over a real TLS socket against a free-plan gateway: answered fast,
// with a 422 naming the budget (or correctly, on the pool); what they cost before the budgets is in the
// test names. "Fast" is measured as CPU time of this process (gateway, its worker threads and the client
// all run here), which a loaded machine does not inflate as it does wall time; the wall-time bound only
// catches a hang.
const BOUND_MS = 250
const WALL_BOUND_MS = 10_000

let t: TestApp
let key: string

beforeAll(async () => {
  t = await startTestApp({
    listen: true,
    env: {
      POOL_FREE_THREADS: '1',
      PLANS: JSON.stringify({ free: { key_rate_per_second: 1000, workspace_rate_per_second: 1000 } }),
    },
  })
  key = (await t.newWorkspace('free')).key
  // the free pool's thread is up and has run each family before the timed requests (POOL_WARM is off in
  // tests, and a cold thread on a loaded machine can take seconds: a 503 then says "try again")
  const warmUps: [string, unknown][] = [
    ['/v1/jwt/verify', { token: 'a.b.c', public_key: rsaPem() }],
    ['/v1/text/normalize', { input: `a${'\u0301'.repeat(40)}` }],
    ['/v1/json/patch', { document: {}, patch: [{ op: 'copy', from: '', path: '/a' }] }],
    ['/v1/json/diff', { left: [1], right: [2] }],
  ]
  for (const [path, body] of warmUps) {
    for (let i = 0; i < 20 && (await post(path, body)).status === 503; i++) await sleep(250)
  }
}, 60_000)

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

afterAll(async () => {
  await t?.close()
})

function post(path: string, body: unknown, type = 'application/json'): Promise<RawResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': type }
  const payload = typeof body === 'string' ? body : JSON.stringify(body)
  return h1Request(t.url, { method: 'POST', path, headers, body: payload, ca: t.tls!.cert })
}

async function timed(path: string, body: unknown, type?: string): Promise<RawResponse & { ms: number }> {
  const started = performance.now()
  const cpu = process.cpuUsage()
  const res = await post(path, body, type)
  const used = process.cpuUsage(cpu)
  expect(performance.now() - started).toBeLessThan(WALL_BOUND_MS)
  return Object.assign(res, { ms: (used.user + used.system) / 1000 })
}

function expectRefused(res: RawResponse & { ms: number }, details: Record<string, unknown>): void {
  expect(res.status).toBe(422)
  expect(res.json<{ error: unknown }>().error).toMatchObject({ code: 'ERR_COMPUTE_LIMIT', details })
  expect(res.ms).toBeLessThan(BOUND_MS)
}

function pool(res: RawResponse): string | undefined {
  return /dispatch;desc="([^"]+)"/.exec(String(res.headers['server-timing']))?.[1]
}

let pem: string | undefined
function rsaPem(): string {
  pem ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({
    type: 'spki',
    format: 'pem',
  }) as string
  return pem
}

describe('worst-case inputs of issue 14, over a real socket', () => {
  it('json/format: 5.6 KB of nested arrays at indent 8 (was 2.2 s, 62 MB) → output budget', async () => {
    const input = '['.repeat(2800) + ']'.repeat(2800)
    expectRefused(await timed('/v1/json/format', { input, indent: 8 }), {
      reason: 'output_size',
      limit: 1024 * 1024,
    })
  })

  it('json/format: a 4 KB raw body with ?indent=8 (was 1.2 s) → output budget in the streaming sink', async () => {
    const body = '['.repeat(2000) + ']'.repeat(2000)
    const res = await timed('/v1/json/format?indent=8', body, 'application/octet-stream')
    expectRefused(res, { reason: 'output_size', limit: 1024 * 1024 })
  })

  it('json/patch: an 822 B patch whose copies double a subtree (was 0.6 s) → copy budget', async () => {
    const patch = Array.from({ length: 20 }, () => ({ op: 'copy', from: '/a', path: '/a/-' }))
    const body = {
      document: {
        a: [
          [0, 0],
          [0, 0],
        ],
      },
      patch,
    }
    expect(JSON.stringify(body).length).toBeLessThan(1024)
    expectRefused(await timed('/v1/json/patch', body), { reason: 'copied_bytes', limit: 64 * 1024 })
  })

  it('json/patch: a 29 KB patch that would answer 29 MB → copy budget (bytes, not values)', async () => {
    // ten copies doubling an array that holds one 28 KB string: 2^10 × 28 KB
    const patch = Array.from({ length: 10 }, () => ({ op: 'copy', from: '/a', path: '/a/-' }))
    const body = { document: { a: ['x'.repeat(28_000)] }, patch }
    expect(JSON.stringify(body).length).toBeLessThan(29_000)
    expectRefused(await timed('/v1/json/patch', body), { reason: 'copied_bytes' })
  })

  it('text/encode punycode: a 1,024-code-point label (was 0.35 s) → 63 (DNS)', async () => {
    const res = await timed('/v1/text/encode', { input: `a.${'é'.repeat(1024)}.de`, format: 'punycode' })
    expectRefused(res, { reason: 'label_length', limit: 63, position: 2 })
  })

  it('text/normalize: a long run of combining marks (was 0.2-0.45 s) → refused past 1,024, on the pool past 30', async () => {
    const marks = ['\u0345', '\u0301', '\u031B', '\u0316', '\u0334']
    const run = (n: number) => `a${Array.from({ length: n }, (_, i) => marks[i % 5]).join('')}`
    for (const form of ['NFC', 'NFD', 'NFKC', 'NFKD']) {
      const res = await timed('/v1/text/normalize', { input: run(20_000), form })
      expectRefused(res, { reason: 'non_starter_run', limit: 1024 })
    }
    // 31..1,024 marks in a row: exact answer, computed on the pool
    const ok = await timed('/v1/text/normalize', { input: run(500), form: 'NFC' })
    expect(ok.status).toBe(200)
    expect(pool(ok)).toBe('free')
    expect(ok.json<{ data: { output: string } }>().data.output).toBe(run(500).normalize('NFC'))
    // stream-safe text (at most 30) stays inline
    const inline = await timed('/v1/text/normalize', { input: run(30).repeat(10), form: 'NFC' })
    expect(inline.status).toBe(200)
    expect(pool(inline)).toBeUndefined()
  })

  it('json/diff: a near-threshold worst case (was 34-244 ms inline) runs on the pool', async () => {
    const left = Array.from({ length: 1800 }, (_, i) => i)
    const body = { left, right: [...left].reverse(), output: 'both' }
    expect(JSON.stringify(body).length).toBeLessThan(16 * 1024)
    const res = await timed('/v1/json/diff', body)
    expect(res.status).toBe(200)
    expect(pool(res)).toBe('free')
  })

  it('json/format: sort_keys of a 1 MiB raw body (80-140 ms) is answered correctly', async () => {
    const members = Array.from({ length: 60_000 }, (_, i) => `"k${(i * 7919) % 60_000}":${i}`)
    const body = `{${members.join(',')}}`.slice(0, 1024 * 1024)
    const valid = body.endsWith('}') ? body : `${body.slice(0, body.lastIndexOf(','))}}`
    const res = await timed('/v1/json/format?sort_keys=true&mode=minify', valid, 'application/octet-stream')
    expect(res.status).toBe(200)
  })

  it('jwt/verify: a JWKS of 100 RSA keys with huge exponents and no kid (was 0.7 s CPU, 200) → refused', async () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const jwk = publicKey.export({ format: 'jwk' })
    const e = Buffer.alloc(256, 0xff).toString('base64url')
    const keys = Array.from({ length: 100 }, () => ({ ...jwk, e }))
    const header = Buffer.from(JSON.stringify({ alg: 'RS256' })).toString('base64url')
    const token = `${header}.${Buffer.from('{}').toString('base64url')}.${'A'.repeat(342)}`
    const res = await timed('/v1/jwt/verify', { token, jwks: { keys } })
    expect(res.status).toBe(400)
    expect(res.json<{ error: unknown }>().error).toMatchObject({
      code: 'ERR_INVALID_KEY_MATERIAL',
      details: { field: 'jwks.keys.0', index: 0 },
    })
    expect(res.ms).toBeLessThan(BOUND_MS)
  })

  it('jwt/verify: at most 4 keys are tried without a kid; public-key verification runs on the pool', async () => {
    const keys = Array.from({ length: 5 }, () =>
      generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' }),
    )
    const header = Buffer.from(JSON.stringify({ alg: 'RS256' })).toString('base64url')
    const token = `${header}.${Buffer.from('{}').toString('base64url')}.${'A'.repeat(342)}`
    const refused = await timed('/v1/jwt/verify', { token, jwks: { keys } })
    expectRefused(refused, { reason: 'jwks_keys_without_kid', limit: 4, keys: 5 })
    const four = await timed('/v1/jwt/verify', { token, jwks: { keys: keys.slice(0, 4) } })
    expect(four.status).toBe(200)
    expect(four.json<{ data: { valid: boolean } }>().data.valid).toBe(false)
    expect(pool(four)).toBe('free')
  })
})
