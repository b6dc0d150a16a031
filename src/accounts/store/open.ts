import type { StoreSettings } from '../../store/open.ts'
import type { RedisObserver } from '../../store/redis/instrument.ts'
import { MemoryAccountStore } from './memory.ts'
import type { AccountStore } from './types.ts'

export interface OpenAccountStoreOptions {
  clock?: () => number
  observer?: RedisObserver
}

// Console accounts live where the rest of the state does: with Redis configured they are shared by every
// gateway (same command timeout and metrics as the store's connection), else DATA_DIR/accounts.json.
export async function openAccountStore(
  config: StoreSettings,
  options: OpenAccountStoreOptions = {},
): Promise<AccountStore> {
  const target = config.redis
  if (target) {
    // loaded only when Redis is configured (issue 18: RSS at rest)
    const { RedisAccountStore } = await import('./redis.ts')
    return RedisAccountStore.open({
      target,
      policy: { commandTimeoutMs: config.redisCommandTimeoutMs },
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.observer ? { observer: options.observer } : {}),
    })
  }
  return MemoryAccountStore.open({
    dataDir: config.dataDir,
    ...(options.clock ? { clock: options.clock } : {}),
  })
}
