import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { generateKey, hashKey, keyPrefix } from '../../src/keys/format.ts'
import { RedisStore } from '../../src/store/redis/redis-store.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'

// Pages on Redis come from sorted sets by creation time. Records written by a version that kept only the
// plain sets (SADD) must still list: the first page read after the upgrade adds them to the sorted set.
describeRedis('Redis store pagination', () => {
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

  it('lists records created before the sorted sets existed, in order, then keeps them indexed', async () => {
    let now = Date.UTC(2026, 10, 20, 12, 0, 0)
    const prefix = 'mig'
    store = await RedisStore.open({ target: { url: server.url }, prefix, clock: () => now })
    const workspaces: string[] = []
    for (let i = 0; i < 5; i++) {
      now += 1000
      workspaces.push((await store.createWorkspace({ name: `w${i}`, plan: 'free' })).id)
    }
    const ws = workspaces[0]!
    const project = await store.ensureProject(ws, 'default')
    const env = await store.ensureEnvironment(project.id, 'production', 'live')
    const keys: string[] = []
    for (let i = 0; i < 4; i++) {
      now += 1000
      const secret = generateKey('live')
      const key = await store.createKey({
        workspace_id: ws,
        project_id: project.id,
        environment_id: env.id,
        mode: 'live',
        hash: hashKey(secret),
        prefix: keyPrefix(secret),
        name: null,
        families: null,
        allowed_cidrs: null,
        expires_at: null,
        monthly_quota: null,
      })
      keys.push(key.id)
    }
    // what an older version left: the plain sets only
    await raw.del(`${prefix}:workspaces:bytime`, `${prefix}:{ws:${ws}}:keys:bytime`)
    // one more after the upgrade, before the first page read
    now += 1000
    workspaces.push((await store.createWorkspace({ name: 'new', plan: 'free' })).id)

    const page = await store.pageWorkspaces({ limit: 4 })
    expect(page!.data.map((w) => w.id)).toEqual(workspaces.slice(-4).reverse())
    const rest = await store.pageWorkspaces({ limit: 4, startingAfter: page!.data.at(-1)!.id })
    expect(rest!.data.map((w) => w.id)).toEqual(workspaces.slice(0, 2).reverse())
    expect(rest!.has_more).toBe(false)
    expect(await raw.zcard(`${prefix}:workspaces:bytime`)).toBe(6)

    const keyPage = await store.pageKeys(ws, { limit: 10 })
    expect(keyPage!.data.map((k) => k.id)).toEqual([...keys].reverse())
    expect(await raw.zcard(`${prefix}:{ws:${ws}}:keys:bytime`)).toBe(4)

    // a rotation recorded before the reverse index existed is found by the index built on first use
    await store.updateKey(keys[0]!, { rotated_to: keys[1]! })
    await raw.del(`${prefix}:{ws:${ws}}:keys:rotated-from`)
    expect(await store.rotatedFrom(ws, [keys[1]!, keys[2]!])).toEqual(new Map([[keys[1]!, keys[0]!]]))
    expect(await raw.hgetall(`${prefix}:{ws:${ws}}:keys:rotated-from`)).toEqual({
      [keys[1]!]: keys[0]!,
      '*': '1',
    })
  })
})
