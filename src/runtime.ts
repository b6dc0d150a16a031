import type { Config } from './config.ts'
import { KeyVerifier } from './keys/verify.ts'
import { type LogSink, openLogSink } from './logger.ts'
import { createMetrics, type Metrics } from './metrics.ts'
import { MemoryStore } from './store/memory/memory-store.ts'
import type { Store } from './store/types.ts'

// Everything a gateway process opens at boot, closed in reverse order at shutdown.
export interface Runtime {
  config: Config
  store: Store
  verifier: KeyVerifier
  metrics: Metrics
  logSink: LogSink
  clock: () => number
  close(): Promise<void>
}

export interface RuntimeOverrides {
  store?: Store
  clock?: () => number
}

export async function openRuntime(config: Config, overrides: RuntimeOverrides = {}): Promise<Runtime> {
  const clock = overrides.clock ?? Date.now
  const store = overrides.store ?? (await MemoryStore.open({ dataDir: config.dataDir, clock }))
  const verifier = new KeyVerifier(store, {
    cacheSize: config.keyCache.size,
    cacheTtlMs: config.keyCache.ttlMs,
    clock,
  })
  const metrics = createMetrics()
  const logSink = openLogSink()
  return {
    config,
    store,
    verifier,
    metrics,
    logSink,
    clock,
    async close() {
      verifier.close()
      await store.close()
      logSink.flush()
    },
  }
}
