import type { Config } from '../config.ts'
import { MemoryStore } from './memory/memory-store.ts'
import type { RedisTarget } from './redis/client.ts'
import type { RedisObserver } from './redis/instrument.ts'
import type { StoreLog } from './redis/redis-store.ts'
import type { Store } from './types.ts'

export interface OpenStoreOptions {
  clock?: () => number
  log?: StoreLog
  observer?: RedisObserver
}

// REDIS_URL → one Redis, REDIS_CLUSTER_NODES → a Redis Cluster, neither → the embedded store.
export function redisTarget(config: Pick<Config, 'redisUrl' | 'redisClusterNodes'>): RedisTarget | undefined {
  if (config.redisUrl) return { url: config.redisUrl }
  if (config.redisClusterNodes) return { clusterNodes: config.redisClusterNodes }
  return undefined
}

export async function openStore(config: Config, options: OpenStoreOptions = {}): Promise<Store> {
  const target = redisTarget(config)
  if (target) {
    // loaded only when Redis is configured: an embedded gateway never pays for ioredis (issue 18)
    const { RedisStore } = await import('./redis/redis-store.ts')
    return RedisStore.open({ target, policy: { commandTimeoutMs: config.redisCommandTimeoutMs }, ...options })
  }
  return MemoryStore.open({
    dataDir: config.dataDir,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.log ? { log: options.log } : {}),
  })
}
