import { afterAll, beforeAll } from 'vitest'
import { describeRedis, type RedisCluster, startRedisCluster } from '../../helpers/redis-server.ts'
import { EXACTNESS, type Gateway, startGateways } from './gateways.ts'
import { sharedStateScenarios } from './scenarios.ts'

describeRedis('three gateway processes on a 3-master Redis Cluster', () => {
  let cluster: RedisCluster
  let gateways: Gateway[] = []
  beforeAll(async () => {
    cluster = await startRedisCluster(3)
    gateways = await startGateways(3, { REDIS_CLUSTER_NODES: cluster.spec, ...EXACTNESS })
  }, 60_000)
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()))
    await cluster?.stop()
  })

  sharedStateScenarios(() => gateways)
})
