import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { generateKey, hashKey, keyPrefix } from '../../src/keys/format.ts'
import { emptyEndpointCounts } from '../../src/store/endpoint-usage.ts'
import { RedisStore } from '../../src/store/redis/redis-store.ts'
import { defineScripts } from '../../src/store/redis/scripts.ts'
import { describeRedis, freePort, type RedisServer, startRedis } from '../helpers/redis-server.ts'

const T0 = Date.UTC(2026, 10, 20, 12, 0, 0)
const DAY = 86_400_000

// What only the Redis store has to promise: its key layout (one hash tag per workspace, so every script
// runs on one cluster slot), expiry of counters but not of records, one command per limit decision,
// and failing fast instead of hanging.
describeRedis('Redis store layout and behaviour', () => {
  let server: RedisServer
  let raw: Redis
  let store: RedisStore | undefined
  beforeAll(async () => {
    server = await startRedis()
    raw = new Redis(server.url)
  })
  afterEach(async () => {
    await store?.close()
    store = undefined
  })
  afterAll(async () => {
    raw?.disconnect()
    await server?.stop()
  })

  async function commandCalls(): Promise<Record<string, number>> {
    const stats = String(await raw.info('commandstats'))
    return Object.fromEntries(
      [...stats.matchAll(/cmdstat_(\w+):calls=(\d+)/g)]
        .map(([, name, n]) => [name!, Number(n)] as const)
        .filter(([name]) => name !== 'info' && name !== 'config'),
    )
  }

  async function populated(prefix: string) {
    const now = T0
    store = await RedisStore.open({ target: { url: server.url }, prefix, clock: () => now })
    const ws = await store.createWorkspace({ name: 'w', plan: 'pro' })
    const project = await store.ensureProject(ws.id, 'default')
    const env = await store.ensureEnvironment(project.id, 'production', 'live')
    const secret = generateKey('live')
    const key = await store.createKey({
      workspace_id: ws.id,
      project_id: project.id,
      environment_id: env.id,
      mode: 'live',
      hash: hashKey(secret),
      prefix: keyPrefix(secret),
      name: null,
      families: null,
      allowed_cidrs: null,
      expires_at: null,
      monthly_quota: 5,
    })
    const req = {
      workspaceId: ws.id,
      keyId: key.id,
      keyRatePerSecond: 10,
      workspaceRatePerSecond: 10,
      monthlyQuota: 100,
      keyMonthlyQuota: 5,
    }
    return { ws, key, req, store }
  }

  it('puts everything a workspace owns under its hash tag; only documented indexes are global', async () => {
    const { ws, key, req, store: s } = await populated('lay1')
    await s.consume(req)
    const keys = await raw.keys('lay1:*')
    const tagged = keys.filter((k) => k.startsWith(`lay1:{ws:${ws.id}}:`))
    const global = keys.filter((k) => !tagged.includes(k)).sort()
    expect(global).toEqual(
      [
        `lay1:keyhash:${key.hash}`,
        `lay1:keyws:${key.id}`,
        `lay1:projectws:${key.project_id}`,
        'lay1:workspaces',
        // the workspace list's order (pagination): ids by creation time
        'lay1:workspaces:bytime',
      ].sort(),
    )
    // the first {...} of a tagged key is the hash tag: the workspace, nothing else
    for (const k of tagged) expect(/\{([^}]*)\}/.exec(k)?.[1]).toBe(`ws:${ws.id}`)
    expect(tagged.length).toBeGreaterThanOrEqual(6)
  })

  it('records never expire; rate state shares the month usage hash, kept about 13 months', async () => {
    const { ws, key, req, store: s } = await populated('lay2')
    await s.consume(req)
    for (const k of [
      `lay2:{ws:${ws.id}}:ws`,
      `lay2:{ws:${ws.id}}:key:${key.id}`,
      `lay2:keyhash:${key.hash}`,
    ]) {
      expect(await raw.pttl(k)).toBe(-1)
    }
    // the rate state lives in the month's usage hash (one key per decision), not in keys of its own
    expect(await raw.keys(`lay2:{ws:${ws.id}}:tat*`)).toEqual([])
    const tats = await raw.hmget(`lay2:{ws:${ws.id}}:usage:2026-11`, 'tw', `tk:${key.id}`)
    expect(tats.map(Number)).toEqual([T0 + 100, T0 + 100])
    const usageTtl = await raw.pttl(`lay2:{ws:${ws.id}}:usage:2026-11`)
    const expected = Date.UTC(2026, 11, 1) - T0 + 400 * DAY
    expect(Math.abs(usageTtl - expected)).toBeLessThan(5_000)
    // test mode's counts and rate state: a hash of its own, same hash tag (same slot), same lifetime
    await s.consume({ ...req, mode: 'test' })
    const testHash = `lay2:{ws:${ws.id}}:usage-test:2026-11`
    expect(await raw.hmget(testHash, 'requests', 'tw')).toEqual(['1', String(T0 + 100)])
    expect(await raw.hget(`lay2:{ws:${ws.id}}:usage:2026-11`, 'requests')).toBe('1')
    expect(Math.abs((await raw.pttl(testHash)) - expected)).toBeLessThan(5_000)
  })

  it('a deleted workspace leaves no key behind; endpoint counts are kept as long as usage', async () => {
    const { ws, key, req, store: s } = await populated('lay9')
    await s.consume(req)
    const counts = emptyEndpointCounts()
    counts.ok = 1
    counts.latency[0] = 1
    await s.addEndpointUsage('2026-11', new Map([[ws.id, new Map([['POST /v1/x', counts]])]]))
    const ttl = await raw.pttl(`lay9:{ws:${ws.id}}:endpoints:2026-11`)
    expect(Math.abs(ttl - (Date.UTC(2026, 11, 1) - T0 + 400 * DAY))).toBeLessThan(5_000)
    await s.updateKey(key.id, { revoked_at: new Date(T0).toISOString() })
    expect(await s.deleteWorkspace(ws.id)).toMatchObject({ deleted: true })
    expect(await raw.keys('lay9:*')).toEqual([])
  })

  // What the scripts do when the caller's view is stale, which no sequence of store calls can show: a
  // project deleted and another created between the list and the script (ensure-environment.lua), a key
  // deleted and another created between the read of the set and the script (create-key.lua).
  it('capped creates retry when the projects or keys they were handed are not the current ones', async () => {
    const client = new Redis(server.url)
    defineScripts(client)
    try {
      const p = 'lay10:{ws:w}'
      await client.hset(
        `${p}:projects`,
        'b',
        JSON.stringify({ id: 'prj_b' }),
        'c',
        JSON.stringify({ id: 'prj_c' }),
      )
      await client.hset(`${p}:envs:prj_c`, 'one', '{}', 'two', '{}')
      // handed a (deleted) and b: as many projects as there are, not the same ones
      const stale = [`${p}:projects`, `${p}:envs:prj_b`, `${p}:envs:prj_a`, `${p}:envs:prj_b`]
      expect(await client.anvilEnsureEnvironment(stale.length, ...stale, 'x', '{}', 3)).toBeNull()
      const fresh = [`${p}:projects`, `${p}:envs:prj_b`, `${p}:envs:prj_b`, `${p}:envs:prj_c`]
      expect(await client.anvilEnsureEnvironment(fresh.length, ...fresh, 'x', '{}', 3)).toBe('{}')

      await client.sadd(`${p}:keys`, 'key_new')
      await client.hset(`${p}:key:key_new`, 'id', '"key_new"', 'revoked_at', 'null', 'expires_at', 'null')
      const now = JSON.stringify(new Date(T0).toISOString())
      const keys = (ids: string[]) => [`${p}:keys`, `${p}:key:key_x`, ...ids.map((id) => `${p}:key:${id}`)]
      const gone = keys(['key_deleted'])
      expect(await client.anvilCreateKey(gone.length, ...gone, 1, now, 'key_x', 'id', '"key_x"')).toBe(-1)
      const current = keys(['key_new'])
      expect(await client.anvilCreateKey(current.length, ...current, 1, now, 'key_x', 'id', '"key_x"')).toBe(
        0,
      )
    } finally {
      client.disconnect()
    }
  })

  it('decides a request with exactly one command: one EVALSHA, nothing else', async () => {
    const { req, store: s } = await populated('lay3')
    await s.consume(req)
    await raw.config('RESETSTAT')
    await s.consume(req)
    expect(await commandCalls()).toEqual({ evalsha: 1, hmget: 1, hset: 1 })
  })

  it('decides the requests of one event-loop turn with one command, each hash read once and written once', async () => {
    const { req, store: s } = await populated('lay3b')
    await s.consume(req)
    await raw.config('RESETSTAT')
    const admitted = await Promise.all(Array.from({ length: 3 }, () => s.consume(req)))
    // one EVALSHA for the three; inside it one HMGET and one HSET of the one usage hash
    expect(await commandCalls()).toEqual({ evalsha: 1, hmget: 1, hset: 1 })
    expect(admitted.map((d) => d.keyMonth?.remaining)).toEqual([3, 2, 1])
    await raw.config('RESETSTAT')
    const decisions = await Promise.all(Array.from({ length: 10 }, () => s.consume(req)))
    // the key quota of 5 admits one more; the 9 refusals' counters are read with a second HMGET (only a
    // batch with refusals needs them) and written in the same one HSET
    expect(await commandCalls()).toEqual({ evalsha: 1, hmget: 2, hset: 1 })
    expect(decisions.map((d) => d.allowed)).toEqual([true, ...Array(9).fill(false)])
    expect(decisions.map((d) => d.keyMonth?.remaining)).toEqual(Array(10).fill(0))
    expect((await s.usage(req.workspaceId)).keys[req.keyId]).toEqual({
      requests: 5,
      refused_rate: 0,
      refused_quota: 9,
    })
  })

  it('sends at most 64 decisions per call; a full batch leaves at once', async () => {
    const { req, store: s } = await populated('lay3c')
    const many = {
      ...req,
      keyMonthlyQuota: null,
      keyRatePerSecond: 1000,
      workspaceRatePerSecond: 1000,
      monthlyQuota: 1000,
    }
    await s.consume(many)
    await raw.config('RESETSTAT')
    const decisions = await Promise.all(Array.from({ length: 150 }, () => s.consume(many)))
    expect(decisions.every((d) => d.allowed)).toBe(true)
    // in arrival order across the three calls: the month's remaining count goes down one by one
    expect(decisions.map((d) => d.month.remaining)).toEqual(Array.from({ length: 150 }, (_, i) => 998 - i))
    expect((await commandCalls()).evalsha).toBe(3)
  })

  it('counts on top of a usage hash written before the rate state moved into it (no migration)', async () => {
    const { ws, key, req, store: s } = await populated('lay4')
    // the layout of the previous release: counters only, rate state in keys of its own (ignored now)
    const usageKey = `lay4:{ws:${ws.id}}:usage:2026-11`
    await raw.hset(usageKey, 'requests', 7, `k:${key.id}:requests`, 3, 'd:20', 7, 'refused_rate', 2)
    await raw.set(`lay4:{ws:${ws.id}}:tat:ws`, String(T0 + 5_000), 'PX', 10_000)
    const d = await s.consume(req)
    expect(d.allowed).toBe(true)
    expect(d.month.remaining).toBe(100 - 8)
    expect(d.keyMonth?.remaining).toBe(5 - 4)
    expect(await s.usage(ws.id)).toEqual({
      month: '2026-11',
      workspace: { requests: 8, refused_rate: 2, refused_quota: 0 },
      test: { requests: 0, refused_rate: 0, refused_quota: 0 },
      keys: { [key.id]: { requests: 4, refused_rate: 0, refused_quota: 0 } },
      daily: { '2026-11-20': 8 },
    })
    // the hash it found had no expiry of the new kind to keep: it is given the 13 months
    expect(await raw.pttl(usageKey)).toBeGreaterThan(300 * DAY)
  })

  it('refuses to count a decision whose clock and caller disagree about the month; the rest of its batch counts', async () => {
    const client = new Redis(server.url)
    defineScripts(client)
    const month = (y: number, m: number) => [Date.UTC(y, m, 1), Date.UTC(y, m + 1, 1)]
    // two subjects (months A and B, key rate, workspace rate, quota, no key quota, charged)
    const subject = [1, 2, 5, 5, 10, -1, 1]
    const numbers = [
      ...month(2026, 0),
      ...month(2025, 11),
      ...subject,
      ...subject,
      // two runs of one decision each: subject, count, instant
      ...[1, 1, Date.UTC(2026, 5, 1), 2, 1, Date.UTC(2026, 0, 10)],
    ]
    const packed = Buffer.alloc(numbers.length * 8)
    for (const [i, x] of numbers.entries()) packed.writeDoubleLE(x, i * 8)
    const bytes = await client.anvilConsumeBuffer(2, ['skew:{ws:x}:u:a', 'skew:{ws:x}:u:b'], packed, [
      'key_x',
      'key_y',
    ])
    const reply = Array.from({ length: bytes.length / 8 }, (_, i) => bytes.readDoubleLE(i * 8))
    // the first run is an error (reason -1, none admitted) and leaves no trace; the second's decision is
    // admitted on an empty month (no TATs, counts 0) at its own instant, and charged to January's 10th
    expect(reply.slice(0, 7)).toEqual([0, 0, 0, 0, 0, 0, -1])
    expect(reply.slice(7)).toEqual([Date.UTC(2026, 0, 10), -1, -1, 0, 0, 1, 0])
    expect(await raw.hgetall('skew:{ws:x}:u:a')).toMatchObject({
      requests: '1',
      'k:key_y:requests': '1',
      'd:10': '1',
    })
    expect(await raw.hexists('skew:{ws:x}:u:a', 'k:key_x:requests')).toBe(0)
    expect(await raw.exists('skew:{ws:x}:u:b')).toBe(0)
    client.disconnect()
  })

  it('fails the boot quickly and without credentials when Redis is unreachable', async () => {
    const port = await freePort()
    const started = performance.now()
    const opening = RedisStore.open({
      target: { url: `redis://admin:s3cret@127.0.0.1:${port}` },
      connectWaitMs: 400,
    })
    await expect(opening).rejects.toThrow(`Redis redis://127.0.0.1:${port} is unreachable`)
    await opening.catch((err: Error) => expect(err.message).not.toContain('s3cret'))
    expect(performance.now() - started).toBeLessThan(2_000)
  })
})
