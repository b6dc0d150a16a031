import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll } from 'vitest'
import { RedisStore } from '../../src/store/redis/redis-store.ts'
import {
  describeRedis,
  type RedisCluster,
  type RedisServer,
  startRedis,
  startRedisCluster,
} from '../helpers/redis-server.ts'
import { storeContract } from './contract.ts'

// Each test gets its own key prefix (and so its own invalidation channel) on a shared server.
const prefix = () => `t${randomBytes(6).toString('hex')}`

describeRedis('Redis store', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedis()
  })
  afterAll(() => server?.stop())

  storeContract('Redis, single node', {
    open: (clock) => RedisStore.open({ target: { url: server.url }, prefix: prefix(), clock }),
  })
})

describeRedis('Redis Cluster store', () => {
  let cluster: RedisCluster
  beforeAll(async () => {
    cluster = await startRedisCluster(3)
  })
  afterAll(() => cluster?.stop())

  storeContract('Redis Cluster, 3 masters', {
    open: (clock) => RedisStore.open({ target: { clusterNodes: cluster.nodes }, prefix: prefix(), clock }),
  })
})
