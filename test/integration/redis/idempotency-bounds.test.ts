import { Redis } from 'ioredis'
import { afterAll, beforeAll } from 'vitest'
import { describeRedis, type RedisServer, startRedis } from '../../helpers/redis-server.ts'
import { idempotencyBoundsSuite } from '../../http/hooks/idempotency-bounds-suite.ts'

describeRedis('Idempotency-Key kept only once a create ran, and bounded: Redis', () => {
  let server: RedisServer
  let raw: Redis
  beforeAll(async () => {
    server = await startRedis()
    raw = new Redis(server.url)
  })
  afterAll(async () => {
    raw?.disconnect()
    await server?.stop()
  })
  idempotencyBoundsSuite({
    env: () => ({ REDIS_URL: server.url }),
    // what each scope's answers weigh as idempotency-keep.lua counts them, and every record's own size
    async keptBytes() {
      const out: number[] = []
      for (const name of await raw.keys('anvil:idem:{*}:bytes')) out.push(Number(await raw.hget(name, '#')))
      for (const name of await raw.keys('anvil:idem:{*}:*')) {
        if ((await raw.type(name)) === 'string') out.push(await raw.strlen(name))
      }
      return out
    },
  })
})
