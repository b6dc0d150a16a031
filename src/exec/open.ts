import type { Registry } from 'prom-client'
import type { Catalog } from '../ops/catalog.ts'
import { createPoolMetrics, type PoolMetrics } from './metrics.ts'
import { createPools, type PoolSet, type PoolsConfig } from './pools.ts'

// The plan tiers' worker pools and their metrics, built the same way by every process that runs ops on
// threads: the gateway (src/runtime.ts) and the job worker (src/main/job-worker.ts).
// The threads run the catalog's ops (its extra modules loaded by every thread).
export function openPools(
  config: PoolsConfig,
  registry: Registry,
  catalog: Catalog,
): { pools: PoolSet; metrics: PoolMetrics } {
  const pools = createPools(config, catalog.extraModules)
  return { pools, metrics: createPoolMetrics(registry, () => pools.all(), catalog) }
}
