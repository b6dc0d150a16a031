import { availableParallelism } from 'node:os'
import { describe, expect, it } from 'vitest'
import { defaultThreads, loadConfig } from '../../src/config.ts'

describe('default pool sizes', () => {
  it('stay sensible on many cores: free min(cores/2, 4), paid min(cores, 8), at least one each', () => {
    const sizes = [1, 2, 4, 8, 16, 64].map((cores) => [
      cores,
      defaultThreads('free', cores),
      defaultThreads('paid', cores),
    ])
    expect(sizes).toEqual([
      [1, 1, 1],
      [2, 1, 2],
      [4, 2, 4],
      [8, 4, 8],
      [16, 4, 8],
      [64, 4, 8],
    ])
  })

  it('are what a gateway starts with when POOL_*_THREADS are unset, and the variables still win', () => {
    const cores = availableParallelism()
    const config = loadConfig({})
    expect(config.pools.free.threads).toBe(defaultThreads('free', cores))
    expect(config.pools.paid.threads).toBe(defaultThreads('paid', cores))
    const set = loadConfig({ POOL_FREE_THREADS: '12', POOL_PAID_THREADS: '24' })
    expect([set.pools.free.threads, set.pools.paid.threads]).toEqual([12, 24])
  })
})
