import { afterAll, beforeAll } from 'vitest'
import { describeRedis, type RedisServer, startRedis } from '../../helpers/redis-server.ts'
import { EXACTNESS, type Gateway, startGateways } from './gateways.ts'
import { sharedStateScenarios } from './scenarios.ts'

describeRedis('three gateway processes on one Redis', () => {
  let redis: RedisServer
  let gateways: Gateway[] = []
  beforeAll(async () => {
    redis = await startRedis()
    gateways = await startGateways(3, { REDIS_URL: redis.url, ...EXACTNESS })
  }, 60_000)
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()))
    await redis?.stop()
  })

  sharedStateScenarios(() => gateways)
})
