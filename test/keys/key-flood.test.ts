import { afterEach, describe, expect, it } from 'vitest'
import { generateKey, hashKey } from '../../src/keys/format.ts'
import { InvalidKeyLimiter } from '../../src/keys/invalid-key-limiter.ts'
import { createApiKey } from '../../src/keys/service.ts'
import { KeyVerifier } from '../../src/keys/verify.ts'
import { MemoryStore } from '../../src/store/memory/memory-store.ts'
import type { Store } from '../../src/store/types.ts'
import { countingStore } from '../helpers/counting-store.ts'
import { startTestApp, type TestApp } from '../helpers/harness.ts'
import { h1Request, h2Request } from '../helpers/tls-client.ts'

// Counts store look-ups per key hash: proves which keys reach the store, not only how many do.
function lookupsByHash(inner: Store): { store: Store; lookups: Map<string, number> } {
  const lookups = new Map<string, number>()
  const { store } = countingStore(inner)
  const lookupKey = store.lookupKey.bind(store)
  return {
    store: new Proxy(store, {
      get(target, prop, receiver) {
        if (prop !== 'lookupKey') return Reflect.get(target, prop, receiver)
        return (hash: string) => {
          lookups.set(hash, (lookups.get(hash) ?? 0) + 1)
          return lookupKey(hash)
        }
      },
    }),
    lookups,
  }
}

async function realKey(store: Store): Promise<string> {
  const ws = await store.createWorkspace({ name: 'w', plan: 'pro' })
  const created = await createApiKey(store, { workspace_id: ws.id })
  if (!created.ok) throw new Error(created.reason)
  return created.key
}

const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0)

describe('unknown keys cannot poison the key cache', () => {
  it('a flood of random well-formed keys does not evict a real key; repeats are not looked up again', async () => {
    const { store, lookups } = lookupsByHash(await MemoryStore.open({ dataDir: null }))
    const key = await realKey(store)
    // a real-key cache of 10 entries, a flood 100 times its size
    const verifier = new KeyVerifier(store, { cacheSize: 10, cacheTtlMs: 60_000, negativeCacheSize: 2_000 })
    expect(await verifier.verify(key)).toMatchObject({ valid: true, cached: false })
    const flood = Array.from({ length: 1_000 }, () => generateKey('live'))
    for (const k of flood) expect(await verifier.verify(k)).toMatchObject({ valid: false, reason: 'unknown' })
    expect(await verifier.verify(key)).toMatchObject({ valid: true, cached: true })
    expect(lookups.get(hashKey(key))).toBe(1)
    expect(total(lookups)).toBe(1_001)
    // the same flood again is answered from the negative cache: no store look-up at all
    for (const k of flood) {
      expect(await verifier.verify(k)).toMatchObject({ valid: false, reason: 'unknown', cached: true })
    }
    expect(total(lookups)).toBe(1_001)
    verifier.close()
  })

  it('the negative cache is bounded and short-lived, and a key created later is found', async () => {
    const { store, lookups } = lookupsByHash(await MemoryStore.open({ dataDir: null }))
    const verifier = new KeyVerifier(store, {
      cacheSize: 10,
      cacheTtlMs: 60_000,
      negativeCacheSize: 50,
      negativeCacheTtlMs: 100,
    })
    const flood = Array.from({ length: 200 }, () => generateKey('live'))
    for (const k of flood) await verifier.verify(k)
    // only the 50 most recent stay: the first ones are looked up again
    await verifier.verify(flood[0]!)
    expect(lookups.get(hashKey(flood[0]!))).toBe(2)
    await verifier.verify(flood[199]!)
    expect(lookups.get(hashKey(flood[199]!))).toBe(1)
    await new Promise((r) => setTimeout(r, 150))
    await verifier.verify(flood[199]!)
    expect(lookups.get(hashKey(flood[199]!))).toBe(2)
    verifier.close()
  })

  it('invalid-key attempts per address are limited without touching the store; other addresses and cached keys go on', async () => {
    let now = 1_000_000
    const { store, lookups } = lookupsByHash(await MemoryStore.open({ dataDir: null }))
    const key = await realKey(store)
    const limiter = new InvalidKeyLimiter({ max: 5, windowMs: 60_000, addresses: 100, lookups: 3 })
    const verifier = new KeyVerifier(store, { cacheSize: 10, cacheTtlMs: 600_000, limiter, clock: () => now })
    expect((await verifier.verify(key, '198.51.100.7')).valid).toBe(true)
    for (let i = 0; i < 5; i++) {
      expect(await verifier.verify(generateKey('live'), '198.51.100.7')).toMatchObject({ reason: 'unknown' })
    }
    const before = total(lookups)
    for (let i = 0; i < 200; i++) {
      expect(await verifier.verify(generateKey('live'), '198.51.100.7')).toMatchObject({
        valid: false,
        reason: 'throttled',
        retryAfter: 60,
      })
    }
    // malformed keys are refused the same way once the address is over
    expect(await verifier.verify('nope', '198.51.100.7')).toMatchObject({ reason: 'throttled' })
    // past the limit, the address's 3 look-ups were spent on the first unknown keys, then none at all
    expect(total(lookups)).toBe(before + 3)
    // the cached real key still works from that address; another address is not affected
    expect(await verifier.verify(key, '198.51.100.7')).toMatchObject({ valid: true, cached: true })
    expect(await verifier.verify(generateKey('live'), '203.0.113.9')).toMatchObject({ reason: 'unknown' })
    // an IPv6 client is counted by its /64
    for (let i = 0; i < 5; i++) await verifier.verify(generateKey('live'), `2001:db8:1:2::${i + 1}`)
    expect(await verifier.verify(generateKey('live'), '2001:db8:1:2:ffff::9')).toMatchObject({
      reason: 'throttled',
    })
    // the window ends: the address may try again
    now += 60_000
    expect(await verifier.verify(generateKey('live'), '198.51.100.7')).toMatchObject({ reason: 'unknown' })
    verifier.close()
  })

  it('with the invalidation channel unconfirmed, a cached key older than 1 s is looked up again, even from a throttled address', async () => {
    const inner = await MemoryStore.open({ dataDir: null })
    const { store: counted, lookups } = lookupsByHash(inner)
    let live = true
    const store = new Proxy(counted, {
      get: (target, prop, receiver) =>
        prop === 'invalidationLive' ? () => live : Reflect.get(target, prop, receiver),
    })
    const key = await realKey(store)
    const limiter = new InvalidKeyLimiter({ max: 1, windowMs: 60_000, addresses: 10, lookups: 0 })
    const verifier = new KeyVerifier(store, { cacheSize: 10, cacheTtlMs: 600_000, limiter })
    expect((await verifier.verify(key, '198.51.100.7')).valid).toBe(true)
    await verifier.verify(generateKey('live'), '198.51.100.7')
    expect(await verifier.verify(generateKey('live'), '198.51.100.7')).toMatchObject({ reason: 'throttled' })
    await new Promise((r) => setTimeout(r, 1_100))
    // channel live: the cache is trusted for its whole TTL
    expect(await verifier.verify(key, '198.51.100.7')).toMatchObject({ valid: true, cached: true })
    expect(lookups.get(hashKey(key))).toBe(1)
    live = false
    expect(await verifier.verify(key, '198.51.100.7')).toMatchObject({ valid: true, cached: false })
    expect(lookups.get(hashKey(key))).toBe(2)
    // and fresh again for the next second
    expect(await verifier.verify(key, '198.51.100.7')).toMatchObject({ valid: true, cached: true })
    verifier.close()
  })

  it('an address over the limit still gets its valid keys looked up: bad keys spend a small allowance, valid ones nothing', async () => {
    let now = 1_000_000
    const inner = await MemoryStore.open({ dataDir: null })
    const { store, lookups } = lookupsByHash(inner)
    const ws = await inner.createWorkspace({ name: 'office', plan: 'pro' })
    const colleagues: string[] = []
    for (let i = 0; i < 8; i++) {
      const k = await createApiKey(inner, { workspace_id: ws.id })
      if (!k.ok) throw new Error(k.reason)
      colleagues.push(k.key)
    }
    const limiter = new InvalidKeyLimiter({ max: 5, windowMs: 60_000, addresses: 100, lookups: 3 })
    const verifier = new KeyVerifier(store, {
      cacheSize: 100,
      cacheTtlMs: 600_000,
      negativeCacheTtlMs: 1_000,
      limiter,
      clock: () => now,
    })
    const office = '198.51.100.20'
    // a misconfigured script sends one bad key over and over: the address goes over the limit
    const bad = generateKey('live')
    for (let i = 0; i < 50; i++) await verifier.verify(bad, office)
    expect(await verifier.verify(bad, office)).toMatchObject({ reason: 'throttled' })
    expect(lookups.get(hashKey(bad))).toBe(1)
    // every colleague's key, never seen by this gateway, is looked up and served: valid keys cost nothing
    for (const k of colleagues) expect(await verifier.verify(k, office)).toMatchObject({ valid: true })
    // the script's key, once the negative cache forgets it, is looked up once more and spends one look-up;
    // its repeats spend nothing more
    await new Promise((r) => setTimeout(r, 1_100))
    for (let i = 0; i < 3; i++)
      expect(await verifier.verify(bad, office)).toMatchObject({ reason: 'throttled' })
    expect(lookups.get(hashKey(bad))).toBe(2)
    // a flood of distinct keys spends what is left (2), in parallel as one at a time: then nothing unknown
    // is looked up from this address until the window ends, a new colleague's key included
    const flood = Array.from({ length: 100 }, () => generateKey('live'))
    const before = total(lookups)
    const answers = await Promise.all(flood.map((k) => verifier.verify(k, office)))
    expect(answers.every((a) => !a.valid && a.reason === 'throttled')).toBe(true)
    expect(total(lookups)).toBe(before + 2)
    const late = await createApiKey(inner, { workspace_id: ws.id })
    if (!late.ok) throw new Error(late.reason)
    expect(await verifier.verify(late.key, office)).toMatchObject({ reason: 'throttled' })
    // the colleagues' cached keys go on; the next window starts afresh
    expect(await verifier.verify(colleagues[0]!, office)).toMatchObject({ valid: true, cached: true })
    now += 60_000
    expect(await verifier.verify(late.key, office)).toMatchObject({ valid: true })
    verifier.close()
  })

  it('the limiter tracks a bounded number of addresses', () => {
    const limiter = new InvalidKeyLimiter({ max: 1, windowMs: 60_000, addresses: 10, lookups: 0 })
    limiter.failed('192.0.2.1', 0)
    expect(limiter.blockedFor('192.0.2.1', 0)).toBe(60)
    for (let i = 2; i < 100; i++) limiter.failed(`192.0.2.${i}`, 0)
    // forgotten (least recently seen): bounded memory is worth more than remembering every flooder
    expect(limiter.blockedFor('192.0.2.1', 0)).toBe(0)
    expect(limiter.blockedFor('192.0.2.99', 0)).toBe(60)
  })
})

describe('invalid-key limit over a real socket', () => {
  let t: TestApp
  afterEach(() => t?.close())

  it('answers 429 ERR_RATE_LIMITED with Retry-After after INVALID_KEY_LIMIT bad keys, over HTTP/1.1 and HTTP/2', async () => {
    const counted = countingStore(await MemoryStore.open({ dataDir: null }))
    t = await startTestApp({
      listen: true,
      env: { INVALID_KEY_LIMIT: '4', INVALID_KEY_WINDOW_MS: '60000' },
      overrides: { store: counted.store },
    })
    const ca = t.tls!.cert
    const call = (key: string, h2 = false) =>
      (h2 ? h2Request : h1Request)(t.url, {
        method: 'POST',
        path: '/v1/hash/sha256',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: '{"input":"x"}',
        ca,
      })
    expect((await call(t.key)).status).toBe(200)
    const lookupsBefore = counted.calls.get('lookupKey') ?? 0
    for (let i = 0; i < 4; i++) {
      const res = await call(generateKey('live'), i % 2 === 1)
      expect(res.status).toBe(401)
      expect(res.json<{ error: { code: string } }>().error.code).toBe('ERR_INVALID_API_KEY')
    }
    for (const h2 of [false, true]) {
      const res = await call(generateKey('live'), h2)
      expect(res.status).toBe(429)
      expect(res.headers['retry-after']).toBe('60')
      expect(res.json()).toMatchObject({
        error: {
          code: 'ERR_RATE_LIMITED',
          details: { policy: 'invalid_key', retry_after_seconds: 60 },
        },
      })
    }
    // the 4 bad keys, then the 2 refused past the limit, within the address's look-up allowance (5)
    expect((counted.calls.get('lookupKey') ?? 0) - lookupsBefore).toBe(6)
    // the customer's own (cached) key keeps working from the same address
    expect((await call(t.key)).status).toBe(200)
  })

  it('behind one address, a script repeating a bad key does not lock out a colleague whose key this gateway has not seen', async () => {
    const counted = countingStore(await MemoryStore.open({ dataDir: null }))
    t = await startTestApp({
      listen: true,
      env: { INVALID_KEY_LIMIT: '4', INVALID_KEY_WINDOW_MS: '60000' },
      overrides: { store: counted.store },
    })
    const call = (key: string, h2 = false) =>
      (h2 ? h2Request : h1Request)(t.url, {
        method: 'POST',
        path: '/v1/hash/sha256',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: '{"input":"x"}',
        ca: t.tls!.cert,
      })
    // a mistyped key, well-formed, sent over and over
    const mistyped = generateKey('live')
    for (let i = 0; i < 30; i++) await call(mistyped, i % 2 === 0)
    expect((await call(mistyped)).status).toBe(429)
    // a colleague's key, new to this gateway, from the same address (was 429 until the window ended)
    const colleague = await t.newKey()
    expect((await call(colleague.key)).status).toBe(200)
    expect((await call(colleague.key, true)).status).toBe(200)
    // a revoked key is refused like the mistyped one: looked up once (its revocation dropped it from the
    // cache), then refused from the cache
    const revoked = await t.newKey()
    expect((await call(revoked.key)).status).toBe(200)
    await t.runtime.store.updateKey(revoked.id, { revoked_at: new Date(0).toISOString() })
    expect((await call(revoked.key)).status).toBe(429)
    const seen = counted.calls.get('lookupKey') ?? 0
    expect((await call(revoked.key, true)).status).toBe(429)
    expect(counted.calls.get('lookupKey') ?? 0).toBe(seen)
    // a flood of random keys spends the allowance; from then on, unknown keys are refused unread
    const lookups = () => counted.calls.get('lookupKey') ?? 0
    for (let i = 0; i < 10; i++) expect((await call(generateKey('live'))).status).toBe(429)
    const before = lookups()
    for (let i = 0; i < 10; i++) expect((await call(generateKey('live'))).status).toBe(429)
    expect(lookups()).toBe(before)
    expect((await call(colleague.key)).status).toBe(200)
  })
})
