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

// Where state lives, as the composition root hands it down (src/config.ts reads it): a Redis (one, or a
// Cluster), or the embedded store in DATA_DIR. The account store and the jobs live beside it.
export interface StoreSettings {
  redis: RedisTarget | undefined
  redisCommandTimeoutMs: number
  dataDir: string
}

export async function openStore(config: StoreSettings, options: OpenStoreOptions = {}): Promise<Store> {
  const target = config.redis
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
